/** What the profiler keeps about a request while it runs, until its report is written. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestProfile } from '../http/request-state.js';
import type { Redactor } from './redact.js';

export type { RequestProfile, StageMarks } from '../http/request-state.js';

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
