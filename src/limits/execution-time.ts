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
interface TimedRun {
  runHere(): unknown;
  abort(reason: Error): void;
}

type Stop = (reason: Error) => void;

/** A handler under the deadline: a link in the running handlers' list, oldest first. */
class Running {
  older: Running | null = null;
  newer: Running | null = null;
  /** False once it settled or was stopped: it is out of the list. */
  running = true;

  constructor(
    readonly stop: Stop,
    /** `performance.now()` milliseconds. */
    readonly deadline: number,
  ) {}
}

/** The sweep's step: a twentieth of the limit, at least 10 ms, at most a second. */
function sweepStepMs(seconds: number): number {
  return Math.min(1000, Math.max(10, (seconds * 1000) / 20));
}

/**
 * The handlers running in this process, oldest first. One interval, armed while any runs,
 * stops those past MAX_EXECUTION_TIME: every handler has the same limit, so the oldest are
 * the first due, and a request costs a link in a list rather than a timer of its own (a
 * list, not a set: a set that empties and fills again per request rebuilds its table).
 * A handler is stopped within one step after its deadline. The heap guard stops them all.
 */
export class RunningHandlers {
  private oldest: Running | null = null;
  private newest: Running | null = null;
  private count = 0;
  private readonly ms: number;
  private sweep: NodeJS.Timeout | undefined;

  /** `seconds`: MAX_EXECUTION_TIME; 0 for none (the heap guard still sees the handlers). */
  constructor(private readonly seconds: number) {
    this.ms = seconds > 0 ? seconds * 1000 : Infinity;
  }

  get size(): number {
    return this.count;
  }

  /** `startedAt`: when the handler was called, in `performance.now()` milliseconds. */
  add(stop: Stop, startedAt = performance.now()): Running {
    const entry = new Running(stop, startedAt + this.ms);
    entry.older = this.newest;
    if (this.newest === null) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
    this.count++;
    if (this.sweep === undefined && this.ms !== Infinity)
      this.sweep = setInterval(() => this.stopOverdue(), sweepStepMs(this.seconds));
    return entry;
  }

  /** Takes the handler out; false if it was already out (settled or stopped). */
  delete(entry: Running): boolean {
    if (!entry.running) return false;
    entry.running = false;
    if (entry.older === null) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === null) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = entry.newer = null;
    this.count--;
    return true;
  }

  stopAll(reason: Error): void {
    const all: Running[] = [];
    for (let entry = this.oldest; entry !== null; entry = entry.newer) all.push(entry);
    for (const entry of all) entry.stop(reason);
  }

  close(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
  }

  private stopOverdue(): void {
    if (this.count === 0) return this.close();
    const now = performance.now();
    // Oldest first: the first one not yet due ends the sweep. A stop takes its entry out.
    let entry = this.oldest;
    while (entry !== null && entry.deadline <= now) {
      const newer = entry.newer;
      entry.stop(new ExecutionTimeExceededError(this.seconds));
      entry = newer;
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
    // Whichever comes first, the outcome or the stop, takes the entry out; the other finds it gone.
    const entry = handlers.add((reason: Error) => {
      if (!handlers.delete(entry)) return;
      run.abort(reason);
      reject(reason);
    }, startedAt);
    pending.then(
      (value) => handlers.delete(entry) && resolve(value),
      (error: unknown) => handlers.delete(entry) && reject(error),
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
