/**
 * The routing collector: the route that answered and its parameters, or, for a request no
 * route answered (404, 405, slash redirect), the facts (path, route table version) from
 * which the routes that came closest, why each missed, and the methods the path allows are
 * derived when the report is read: the request's way pays for none of it.
 */
import { requestTarget } from '../../http/request-url.js';
import type { RouteMatcher } from '../../routing/route-matcher.js';
import { routeOf } from '../../routing/route-table.js';
import type { Report } from '../model/report.js';
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';
import { routingPanel, routingText, type RoutingSection } from './routing-panel.js';

export type { RoutingSection } from './routing-panel.js';

export const routingCollector = defineCollector<RoutingSection, CollectorSetup>({
  name: 'routing',
  panel: routingPanel,
  text: routingText,
  toolbar: ({ request }) => {
    const route = routeOf(request);
    const params = Object.entries((request.params ?? {}) as Record<string, unknown>);
    const detail: Array<readonly [string, string]> = [['Path', requestTarget(request).path]];
    if (route !== undefined) detail.push(['Pattern', route.path]);
    for (const [name, value] of params) detail.push([`:${name}`, String(value)]);
    return [{ label: 'Route', value: route?.name ?? 'no route', detail }];
  },
  // `matcher` is asked lazily: the kernel builds it once every route is declared.
  create: ({ matcher }) => ({
    collect({ request, reply }): RoutingSection {
      const { path } = requestTarget(request);
      const route = routeOf(request);
      if (route !== undefined) {
        return {
          path,
          matched: { name: route.name, path: route.path, methods: [request.routeOptions.method].flat().map(String) },
          params: { ...(request.params as Record<string, string>) },
        };
      }
      const location = reply.getHeader('location');
      return {
        path,
        matched: null,
        routeTable: matcher()?.version,
        redirectedTo:
          reply.statusCode >= 300 && reply.statusCode < 400 && typeof location === 'string' ? location : null,
      };
    },
    derive: (section, report) => {
      const routes = matcher();
      return routes ? explainUnmatched(section, report, routes) : section;
    },
  }),
});

/**
 * The section with the closest routes and the allowed methods of an unmatched request,
 * derived from `routes`; a matched request's, or one stored with its explanations, as it is.
 */
export function explainUnmatched(
  section: RoutingSection,
  report: Pick<Report, 'method'>,
  routes: RouteMatcher,
): RoutingSection {
  if (section.matched !== null || section.closest !== undefined || typeof section.path !== 'string') return section;
  return {
    ...section,
    allowedMethods: routes.allowedMethods(section.path),
    closest: routes.closest(report.method, section.path),
    nearRoutes: routes.nearest(section.path).map(({ methods, path }) => ({ methods, path })),
    ...(section.routeTable === routes.version ? {} : { routeTableChanged: true }),
  };
}
