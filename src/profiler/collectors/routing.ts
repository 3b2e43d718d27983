/**
 * The routing section: the route that answered and its parameters, or, for a request no
 * route answered (404, 405, slash redirect), the routes that came closest and why each
 * missed, and the methods the path allows. Asked after the response, so it costs the
 * response nothing.
 */
import { requestTarget } from '../../http/request-url.js';
import type { RouteMatcher, RouteMiss } from '../../routing/route-matcher.js';
import { routeOf } from '../../routing/route-table.js';
import type { Collector } from '../request-profile.js';

export interface RoutingSection {
  /** The path as sent, percent-encoding kept. */
  path: string;
  matched: { name: string | null; path: string; methods: string[] } | null;
  params?: Record<string, string>;
  allowedMethods?: string[];
  closest?: RouteMiss[];
  redirectedTo?: string | null;
}

/** `matcher` is asked lazily: the kernel builds it once every route is declared. */
export function routingCollector(matcher: () => RouteMatcher | undefined): Collector {
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
      const routes = matcher();
      const location = reply.getHeader('location');
      return {
        path,
        matched: null,
        allowedMethods: [...(routes?.allowedMethods(path) ?? [])],
        closest: routes?.closest(request.method, path) ?? [],
        redirectedTo: reply.statusCode >= 300 && reply.statusCode < 400 && typeof location === 'string' ? location : null,
      };
    },
  };
}
