/**
 * MAX_EXECUTION_TIME for handlers that run in this process: at the deadline the handler's
 * AbortSignal fires and the client gets the 500 at once; whatever the handler does after
 * is ignored. The heap guard can stop a handler the same way.
 *
 * A handler that never yields (a busy loop) holds the event loop, and so this timer, and
 * every other request: such handlers belong in an isolated route.
 */
import type { Invocation } from '../routing/register-routes.js';
import type { HeapGuard } from './heap-guard.js';
import { ExecutionTimeExceededError } from './limit-errors.js';

export function runInProcess(invocation: Invocation, seconds: number, guard: HeapGuard): Promise<unknown> {
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
