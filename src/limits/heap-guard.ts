/**
 * The process's own heap guard, for handlers that run in this process: near V8's heap limit the running
 * in-process handlers are stopped (500, signal fired) and new matched requests refused (503) until a
 * collection brings the heap down. It keeps the process alive under load; one request's memory can
 * only be limited in an isolated route, since an in-process handler shares the heap.
 */
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyBaseLogger } from 'fastify';
import type { RunningHandlers } from './execution-time.js';
import { HeapGuardHttpError, MemoryExhaustedError } from './limit-errors.js';
import { formatBytes } from '../utils/bytes.js';

interface HeapGuardOptions {
  log: FastifyBaseLogger;
  /** The in-process handlers, stopped when the guard trips. */
  running: Pick<RunningHandlers, 'size' | 'stopAll'>;
  /** Share of the heap limit at which the guard trips. */
  high?: number;
  /** Share of the heap limit under which it lets work in again. */
  low?: number;
  intervalMs?: number;
}

export class HeapGuard {
  private readonly high: number;
  private readonly low: number;
  private tripped = false;
  private lastCollection = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly collect = exposeGc();

  constructor(private readonly options: HeapGuardOptions) {
    // Under 80%: past it, V8 ends a process after four full collections in a row that free
    // little while the program gets under 40% of the time ("ineffective mark-compacts").
    this.high = options.high ?? 0.7;
    this.low = options.low ?? 0.55;
    this.timer = setInterval(() => this.sample(), options.intervalMs ?? 25);
    this.timer.unref();
  }

  /** Throws a 503 while the heap is over the mark; called before a matched request's body is read. */
  admit(): void {
    if (this.tripped) {
      const { used, limit } = heapUse();
      throw new HeapGuardHttpError(
        `The service is short of memory (heap ${formatBytes(used)} of ${formatBytes(limit)} in use); try again shortly`,
      );
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const { used, limit } = heapUse();
    if (!this.tripped && used >= limit * this.high) {
      this.tripped = true;
      this.options.log.warn(
        `heap guard: ${formatBytes(used)} of ${formatBytes(limit)} in use; stopping ${this.options.running.size} in-process handler(s) and refusing new requests`,
      );
      this.options.running.stopAll(new MemoryExhaustedError(limit));
    } else if (this.tripped && used < limit * this.low) {
      this.tripped = false;
      this.options.log.warn(
        `heap guard: ${formatBytes(used)} of ${formatBytes(limit)} in use; accepting requests again`,
      );
    } else if (this.tripped && this.options.running.size === 0) {
      // An idle process may not collect for a long time; without this it could refuse forever.
      // Not while stopped handlers wind down, still holding their memory: V8 ends a process
      // whose full collections near the limit free nothing, one after another.
      this.collectGarbage();
    }
  }

  private collectGarbage(): void {
    if (!this.collect || Date.now() - this.lastCollection < 1000) return;
    this.lastCollection = Date.now();
    this.collect();
  }
}

/**
 * The old generation, which is what V8 dies of, with the young large objects that the next
 * scavenge promotes into it whole; the semi-spaces' use is left out.
 */
function heapUse(): { used: number; limit: number } {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name !== 'new_space') used += space.space_used_size;
  return { used, limit: OLD_GENERATION_LIMIT };
}

/**
 * `--max-old-space-size` when it is given. Otherwise the heap limit less the young
 * generation's reserve: three semi-spaces of `--max-semi-space-size`, whose default V8 13
 * (Node 24) raised from 16 MB to 64 MB.
 */
export function oldGenerationLimit(flags: readonly string[], heapSizeLimit: number, v8Version: string): number {
  const megabytes = (name: string): number | undefined => {
    const pattern = new RegExp(`^--${name.replaceAll('-', '[-_]')}=(\\d+)$`);
    const flag = flags.findLast((argument) => pattern.test(argument));
    return flag === undefined ? undefined : Number(pattern.exec(flag)![1]);
  };
  const oldSpace = megabytes('max-old-space-size');
  if (oldSpace !== undefined) return oldSpace * MB;
  const semiSpace = megabytes('max-semi-space-size') ?? (Number.parseInt(v8Version, 10) >= 13 ? 64 : 16);
  return heapSizeLimit - 3 * semiSpace * MB;
}

const MB = 1024 * 1024;

const OLD_GENERATION_LIMIT = oldGenerationLimit(
  [...(process.env.NODE_OPTIONS?.split(/\s+/) ?? []), ...process.execArgv],
  getHeapStatistics().heap_size_limit,
  process.versions.v8,
);

/** V8's full collection, made reachable at run time (the `--expose-gc` flag from inside). */
function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}
