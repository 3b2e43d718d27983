/**
 * vigil's not-found handler on the application's root, giving way to the application's:
 * Fastify takes one root `setNotFoundHandler` and throws on a second, which NestJS's adapter
 * makes at `app.init()`. vigil's own is kept in a slot that a later root call fills instead.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type NotFoundHandler = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;

/** The lifecycle hooks Fastify lets `setNotFoundHandler(opts, handler)` add. */
const HANDLER_HOOKS = ['preValidation', 'preHandler'] as const;

/**
 * Sets `handler` as `app`'s not-found handler, the one that answers a route's
 * `reply.callNotFound()` (unmatched requests are answered before, by the unmatched hook).
 * A root `setNotFoundHandler` called after it takes its place rather than throwing; one
 * called before it (vigil registered after `app.init()`) is left in place.
 */
export function setRootNotFoundHandler(app: FastifyInstance, handler: NotFoundHandler): void {
  let current: NotFoundHandler = handler;
  const setNotFoundHandler = app.setNotFoundHandler;
  const notFound: NotFoundHandler = function (request, reply) {
    return current.call(this, request, reply);
  };
  try {
    Reflect.apply(setNotFoundHandler, app, [notFound]);
  } catch {
    // The application set its own before vigil was registered: it stands.
    return;
  }
  app.setNotFoundHandler = function (this: FastifyInstance, ...args: unknown[]) {
    if (this !== app) return Reflect.apply(setNotFoundHandler, this, args) as FastifyInstance;
    const [first, second] = args;
    const given = (typeof first === 'function' ? first : second) as NotFoundHandler | undefined;
    if (typeof first === 'object' && first !== null && HANDLER_HOOKS.some((hook) => hook in first)) {
      throw new Error(
        "vigil holds the root not-found handler: a handler with hooks (preValidation, preHandler) is set by calling setNotFoundHandler before registering vigil, or in a scope (app.register) of the application's",
      );
    }
    // No handler: Fastify's default 404, which here is vigil's own.
    current = given ?? handler;
    return app;
  } as FastifyInstance['setNotFoundHandler'];
}
