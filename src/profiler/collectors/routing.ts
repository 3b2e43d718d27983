/**
 * The routing section: the route that answered and its parameters, or, for a request no
 * route answered (404, 405, slash redirect), the facts (path, route table version) from
 * which the routes that came closest, why each missed, and the methods the path allows are
 * derived when the report is read: the request's way pays for none of it.
 */
import { requestTarget } from '../../http/request-url.js';
import type { RouteMatcher, RouteMiss } from '../../routing/route-matcher.js';
import { routeOf } from '../../routing/route-table.js';
import type { Report } from '../model/report.js';
import type { Collector } from '../model/request-profile.js';

export interface RoutingSection {
  /** The path as sent, percent-encoding kept. */
  path: string;
  matched: { name: string | null; path: string; methods: string[] } | null;
  params?: Record<string, string>;
  /** Unmatched only: the version of the route table the request met (`RouteMatcher.version`). */
  routeTable?: string;
  /** Derived when read (stored by reports written before `routeTable`). */
  allowedMethods?: readonly string[];
  /** Derived when read (stored by reports written before `routeTable`). */
  closest?: RouteMiss[];
  /** Derived when read: the routes changed since the request, so the explanations are today's routes', not its own. */
  routeTableChanged?: boolean;
  redirectedTo?: string | null;
}

/** `matcher` is asked lazily: the kernel builds it once every route is declared. */
export function routingCollector(matcher: () => RouteMatcher | undefined): Collector<RoutingSection> {
  return {
    name: 'routing',
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
  };
}

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
    ...(section.routeTable === routes.version ? {} : { routeTableChanged: true }),
  };
}
