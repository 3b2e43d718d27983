/**
 * vigil's error handler on the application's root, and the trap it can fall into: a root
 * `setErrorHandler` called after it replaces the pipeline silently. Such a call is noted
 * here (the root's `setErrorHandler` is wrapped), and said once the application is ready.
 */
import type { FastifyBaseLogger, FastifyInstance, onReadyHookHandler } from 'fastify';
import type { ErrorResponder } from './error-handler.js';

export interface RootErrorHandler {
  /** True once a root handler was set after vigil's. */
  replaced(): boolean;
}

/** Sets `handler` as `app`'s error handler, and notes a root handler set after it. */
export function setRootErrorHandler(app: FastifyInstance, handler: ErrorResponder): RootErrorHandler {
  app.setErrorHandler(handler);
  let replaced = false;
  const setErrorHandler = app.setErrorHandler;
  app.setErrorHandler = function (this: FastifyInstance, handler) {
    if (this === app) replaced = true;
    return setErrorHandler.call(this, handler as Parameters<typeof setErrorHandler>[0]);
  } as FastifyInstance['setErrorHandler'];
  return { replaced: () => replaced };
}

/** The onReady warning, naming vigil, when a root handler replaced its own. */
export function replacedHandlerWarning(root: RootErrorHandler, log: FastifyBaseLogger): onReadyHookHandler {
  return (done) => {
    if (root.replaced()) {
      log.warn(
        "a root setErrorHandler replaced vigil's error handler: errors no longer get vigil's pages, debug headers and reports; set the handler in a scope, or pass the errors it does not answer to app.vigil.handleError(error, request, reply)",
      );
    }
    done();
  };
}
