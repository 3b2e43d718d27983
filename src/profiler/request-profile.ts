/** What the profiler keeps about a request while it runs, until its report is written. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestScope } from '../debug/request-scope.js';
import type { Redactor } from './redact.js';

/**
 * When the request reached each stage, in `performance.now()` milliseconds. Stages a
 * request did not go through stay undefined (an unrouted request has no handler).
 */
export interface StageMarks {
  /** The profiler's first hook: the router has already chosen the route. */
  start: number;
  /** Matched routes: the body is about to be read. */
  parsing?: number | undefined;
  /** Matched routes: the handler is about to run. */
  handler?: number | undefined;
  /** An error reached the pipeline. */
  error?: number | undefined;
  /** The response is about to be written. */
  send?: number | undefined;
  /** The response was written (or the client went away). */
  end?: number | undefined;
}

export interface RequestProfile {
  token: string;
  /** Epoch milliseconds at arrival. */
  time: number;
  /** Client address, read at arrival: the socket may be gone when the report is built. */
  ip: string;
  marks: StageMarks;
  /** The error the pipeline rendered, if any. */
  error: Error | undefined;
  /** The client closed the connection before the response was written. */
  aborted: boolean;
  /** The response body as the profiler's onSend hook saw it (a string, a Buffer, a stream), before the toolbar's. */
  responseBody?: unknown;
  /** What the request's own code records while it runs: its log lines and spans. */
  scope: RequestScope;
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
 * Fills one section of a report. `start` runs when the request arrives (keep it cheap: it
 * is on the response's path), `collect` after the response was sent; what `collect`
 * returns is stored under `name` (undefined: no section). `close` runs at shutdown.
 *
 * @example
 * ```ts
 * const userAgent: Collector = { name: 'agent', collect: ({ request }) => ({ agent: request.headers['user-agent'] }) };
 * ```
 */
export interface Collector {
  name: string;
  start?(context: CollectorContext): void;
  collect(context: CollectorContext): unknown;
  close?(): void;
}
