/**
 * The routes an application added before it registered vigil: vigil cannot know them (a
 * wrong method on them is a 404, not a 405). They are read from Fastify's printed route tree
 * when vigil is registered, and named in a warning once the application is ready.
 */
import type { FastifyBaseLogger, FastifyInstance, onReadyHookHandler } from 'fastify';

/** The routes `app` has now, as `GET /early`. */
export function routesAddedBefore(app: FastifyInstance): string[] {
  return routesListed(app.printRoutes({ commonPrefix: false }));
}

/** The routes of Fastify's printed tree (`/early (GET, HEAD)`), as `GET /early`; none for its `(empty tree)`. */
export function routesListed(tree: string): string[] {
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^[\s│├└─]*(\S.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const methods = match[2]!.split(', ').filter((method) => method !== 'HEAD');
    routes.push(`${(methods.length > 0 ? methods : ['HEAD']).join('|')} ${match[1]}`);
  }
  return routes;
}

/** The onReady warning, naming vigil, when routes were added before it. */
export function earlierRoutesWarning(earlier: readonly string[], log: FastifyBaseLogger): onReadyHookHandler {
  return (done) => {
    if (earlier.length > 0) {
      log.warn(
        `routes added before vigil was registered: ${earlier.join(', ')}; vigil does not know them (a wrong method on them is a 404, not a 405): register vigil first`,
      );
    }
    done();
  };
}
