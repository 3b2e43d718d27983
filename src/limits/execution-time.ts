/**
 * MAX_EXECUTION_TIME for handlers that run in this process: at the deadline the handler's AbortSignal
 * fires and the client gets the 500 at once; whatever the handler does after is ignored. A handler that
 * never yields (a busy loop) holds the event loop, the sweep with it: it belongs in an isolated route.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ExecutionTimeExceededError } from './limit-errors.js';

/**
 * A handler's run as the deadline sees it: how to run it (its value, or a promise of it),
 * and how to tell it that it was stopped.
 */
export interface TimedRun {
  runHere(): unknown;
  abort(reason: Error): void;
}

type Stop = (reason: Error) => void;

interface Running {
  stop: Stop;
  /** `performance.now()` milliseconds. */
  deadline: number;
}

/** The sweep's step: a twentieth of the limit, at least 10 ms, at most a second. */
export function sweepStepMs(seconds: number): number {
  return Math.min(1000, Math.max(10, (seconds * 1000) / 20));
}

/**
 * The handlers running in this process, oldest first. One interval, armed while any runs,
 * stops those past MAX_EXECUTION_TIME: every handler has the same limit, so the oldest are
 * the first due, and a request costs an entry in a set rather than a timer of its own. A
 * handler is stopped within one step after its deadline. The heap guard stops them all.
 */
export class RunningHandlers {
  private readonly running = new Set<Running>();
  private readonly ms: number;
  private sweep: NodeJS.Timeout | undefined;

  /** `seconds`: MAX_EXECUTION_TIME; 0 for none (the heap guard still sees the handlers). */
  constructor(private readonly seconds: number) {
    this.ms = seconds > 0 ? seconds * 1000 : Infinity;
  }

  get size(): number {
    return this.running.size;
  }

  /** `startedAt`: when the handler was called, in `performance.now()` milliseconds. */
  add(stop: Stop, startedAt = performance.now()): Running {
    const entry = { stop, deadline: startedAt + this.ms };
    this.running.add(entry);
    if (this.sweep === undefined && this.ms !== Infinity)
      this.sweep = setInterval(() => this.stopOverdue(), sweepStepMs(this.seconds));
    return entry;
  }

  delete(entry: Running): void {
    this.running.delete(entry);
  }

  stopAll(reason: Error): void {
    for (const entry of [...this.running]) entry.stop(reason);
  }

  close(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
  }

  private stopOverdue(): void {
    if (this.running.size === 0) return this.close();
    const now = performance.now();
    // Oldest first: the first one not yet due ends the sweep. A stop removes its entry.
    for (const entry of this.running) {
      if (entry.deadline > now) break;
      entry.stop(new ExecutionTimeExceededError(this.seconds));
    }
  }
}

/**
 * Runs a handler in this process. A value it returns at once is its answer: no limit could
 * stop it meanwhile, the sweep and the heap guard being timers. A promise is raced against
 * MAX_EXECUTION_TIME, counted from the call, and the heap guard.
 */
export function runInProcess(invocation: TimedRun, handlers: RunningHandlers): unknown {
  const startedAt = performance.now();
  const result = invocation.runHere();
  return isPromiseLike(result) ? underDeadline(result, invocation, handlers, startedAt) : result;
}

function underDeadline(
  pending: PromiseLike<unknown>,
  run: Pick<TimedRun, 'abort'>,
  handlers: RunningHandlers,
  startedAt?: number,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      handlers.delete(entry);
      return true;
    };
    const entry = handlers.add((reason: Error) => {
      if (!finish()) return;
      run.abort(reason);
      reject(reason);
    }, startedAt);
    pending.then(
      (value) => finish() && resolve(value),
      (error: unknown) => finish() && reject(error),
    );
  });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** A native handler has no signal to fire. */
const NATIVE_RUN = { abort: () => undefined };

/**
 * A native Fastify handler under the same deadline and heap guard. A handler that returns
 * a promise (an async handler, or one returning `reply`) is raced against them; one that
 * answers through `reply` and returns nothing gives nothing to race, and runs as Fastify
 * runs it. A native handler has no signal to fire: whatever it does after the 500 is ignored.
 */
export function withDeadline(handler: RouteHandlerMethod, handlers: RunningHandlers): RouteHandlerMethod {
  return function deadlined(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const result: unknown = handler.call(this, request, reply);
    return isPromiseLike(result) ? underDeadline(result, NATIVE_RUN, handlers) : result;
  } as RouteHandlerMethod;
}
