/** What the profiler keeps about a request while it runs, until its report is written. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redactor } from './redact.js';

export interface RequestProfile {
  token: string;
  /** Epoch milliseconds at arrival. */
  time: number;
  /** Client address, read at arrival: the socket may be gone when the report is built. */
  ip: string;
  /** The error the pipeline rendered, if any. */
  error: Error | undefined;
  /** Per-collector scratch space filled while the request runs. */
  data: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Null outside debug mode and for the profiler's own pages. */
    profile: RequestProfile | null;
  }
}

export interface CollectorContext {
  request: FastifyRequest;
  reply: FastifyReply;
  profile: RequestProfile;
  redactor: Redactor;
}

/**
 * Fills one section of a report. `start` runs when the request arrives, `collect` after
 * the response was sent; what `collect` returns is stored under `name` (undefined: nothing).
 *
 * @example
 * ```ts
 * const userAgent: Collector = { name: 'agent', collect: ({ request }) => request.headers['user-agent'] };
 * ```
 */
export interface Collector {
  name: string;
  start?(context: CollectorContext): void;
  collect(context: CollectorContext): unknown;
}
