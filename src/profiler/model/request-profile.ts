/** What the profiler keeps about a request while it runs, until its report is written. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestScope } from '../../http/request-scope.js';
import type { CollectorPanel, ToolbarEntry } from './panel.js';
import type { Redactor } from '../redaction/redact.js';
import type { Report } from './report.js';

/**
 * When the request reached each stage, in `performance.now()` milliseconds. Stages a
 * request did not go through stay undefined (an unrouted request has no handler).
 */
export interface StageMarks {
  /** The profiler's first hook: the router has already chosen the route. */
  start: number;
  /** Matched routes: every onRequest hook has run; the application's preParsing hooks and the body follow. */
  parsing?: number | undefined;
  /** Matched routes: the handler is called (its preHandler hooks have run). */
  handler?: number | undefined;
  /** An error reached the pipeline. */
  error?: number | undefined;
  /** The response is about to be written. */
  send?: number | undefined;
  /** The response was written (or the client went away). */
  end?: number | undefined;
}

/** What the profiler keeps about a request while it runs, until its report is written. */
export interface RequestProfile {
  /** Empty in production until the report is kept and its token leased. */
  token: string;
  /** Production: whether the report is kept, once decided (at the request's error or end). */
  kept?: boolean;
  /** Epoch milliseconds at arrival. */
  time: number;
  /**
   * Client address, read at arrival when the connection is not watched (HTTP/2); else empty,
   * and read as the report is made (the watch keeps the peer known after the socket closes).
   */
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
  /**
   * Its collectors have started. Production starts them only once the report is kept, when
   * they can all wait (`Collector.startsLate`) and no code has asked for its request yet:
   * until then the scope is a closed one, shared, and `data` an empty one, frozen.
   */
  started: boolean;
  /** The matched route's pattern, noted by its handler when it is called (`markStagesOf`). */
  routePattern?: string;
  /** Per-collector scratch space filled while the request runs. */
  data: Record<string, unknown>;
  /** The reply, for the report made by the onRequestAbort hook, which gets none; let go once it is made. */
  reply: FastifyReply | undefined;
}

declare module '../../http/request-state.js' {
  interface RequestState {
    /** The report being gathered; absent outside debug mode and for the profiler's pages, null once it is queued. */
    profile?: RequestProfile | null;
  }
}

export interface CollectorContext {
  request: FastifyRequest;
  reply: FastifyReply;
  profile: RequestProfile;
  redactor: Redactor;
}

/** What a collector's toolbar entries are read from: the request as its response is sent. */
export type ToolbarContext = Pick<CollectorContext, 'request' | 'reply' | 'profile'>;

/**
 * One section of every report, as one unit: what it collects, how its panel shows it, its
 * lines on the command line, and what the toolbar shows of it. `start` runs when the request
 * arrives (keep it cheap: it is on the response's path), `collect` after the response was
 * sent; what `collect` returns is stored under `name` (undefined: no section), and
 * `derive`, if any, completes it when the report is read. `close` runs at shutdown.
 * Declared with `defineCollector` (`collector-unit.ts`), which keeps it typed by its section.
 *
 * Without `panel`, the section's panel is titled after `name` and shows its data as
 * tables (arrays of records as one table, numbers rounded); without `text`, the command
 * line prints it as JSON.
 *
 * @example
 * ```ts
 * const agent = defineCollector<{ agent: string | null }>({
 *   name: 'agent',
 *   collect: ({ request }) => ({ agent: request.headers['user-agent'] ?? null }),
 *   panel: { title: 'User agent', badge: (section) => ({ value: section.agent ? 'yes' : 'none', status: section.agent ? 'ok' : 'warn' }) },
 *   text: (section) => [`agent ${section.agent ?? 'none'}`],
 * });
 * ```
 */
export interface Collector<Section = unknown> {
  name: string;
  start?(context: CollectorContext): void;
  /**
   * Production: `start` may run when the report is kept, as the request ends, instead of at
   * its arrival, since what it reads does not change meanwhile. When every collector's may,
   * a request that is not kept starts none of them.
   */
  startsLate?: boolean;
  collect(context: CollectorContext): Section | undefined;
  /** In production, instead of `collect` for a request whose report is not kept: lets go of what `start` holds. */
  discard?(context: CollectorContext): void;
  close?(): void;
  /**
   * What can wait until someone reads the report: given the stored section, the section as
   * its panel, the JSON form and the command line show it. Runs at read time, never on the
   * request's way; keep the stored section to facts, and derive explanations here.
   */
  derive?(section: Section, report: Report): Section;
  /** How its panel shows the section: title, menu badge, renderer. */
  panel?: CollectorPanel<Section>;
  /**
   * The section's lines for `vigil profiler:show`, under the panel's title. Each prints on
   * one line: a line break or other control character in it is shown as its escape.
   */
  text?(section: Section, report: Report): string | readonly string[];
  /** The heading of those lines when it says more than the panel's title (`Logs (3)`). */
  textTitle?(section: Section, report: Report): string;
  /**
   * What the debug toolbar shows of the request while its response is sent (before
   * `collect`): entries in the collectors' order, none when it returns none.
   */
  toolbar?(context: ToolbarContext): readonly ToolbarEntry[];
}
