/**
 * MAX_EXECUTION_TIME for handlers that run in this process: at the deadline the handler's
 * AbortSignal fires and the client gets the 500 at once; whatever the handler does after
 * is ignored. The heap guard can stop a handler the same way.
 *
 * A handler that never yields (a busy loop) holds the event loop, and so this timer, and
 * every other request: such handlers belong in an isolated route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { HeapGuard } from './heap-guard.js';
import { ExecutionTimeExceededError } from './limit-errors.js';

/** A handler's run as the deadline sees it: how to run it, and how to tell it that it was stopped. */
export interface TimedRun {
  runHere(): Promise<unknown>;
  abort(reason: Error): void;
}

export function runInProcess(invocation: TimedRun, seconds: number, guard: HeapGuard): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      unwatch();
      return true;
    };
    const stop = (reason: Error) => {
      if (!finish()) return;
      invocation.abort(reason);
      reject(reason);
    };
    const timer = seconds > 0 ? setTimeout(() => stop(new ExecutionTimeExceededError(seconds)), seconds * 1000) : undefined;
    const unwatch = guard.watch(stop);
    invocation.runHere().then(
      (value) => finish() && resolve(value),
      (error: unknown) => finish() && reject(error),
    );
  });
}

/**
 * A native Fastify handler under the same deadline and heap guard. A handler that returns
 * a promise (an async handler, or one returning `reply`) is raced against them; one that
 * answers through `reply` and returns nothing gives nothing to race, and runs as Fastify
 * runs it. A native handler has no signal to fire: whatever it does after the 500 is ignored.
 */
export function withDeadline(handler: RouteHandlerMethod, seconds: number, guard: HeapGuard): RouteHandlerMethod {
  return function deadlined(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const result: unknown = handler.call(this, request, reply);
    if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function') return result;
    return runInProcess({ runHere: () => Promise.resolve(result), abort: () => undefined }, seconds, guard);
  } as RouteHandlerMethod;
}
