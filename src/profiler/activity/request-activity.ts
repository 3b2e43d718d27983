/**
 * What the application did while a request ran, as seen from outside its code: the HTTP
 * calls it made and the database statements it ran. One record per profiled request, kept
 * beside its scope (`http/request-scope.ts`) and found through it, so that whatever a
 * library reports (a diagnostics channel, a trace span) is filed under the request whose
 * code was running, and under no other. Bounded: what is over a bound is counted.
 */
import { relative } from 'node:path';
import { applicationCallSite } from '../../debug/call-site.js';
import { projectRoot } from '../../debug/project-root.js';
import { currentScope, type RequestScope } from '../../http/request-scope.js';
import { cutString } from '../storage/report-bounds.js';

export const MAX_CALLS = 1000;
export const MAX_STATEMENTS = 1000;
/** Longest statement text kept, in characters. */
export const MAX_STATEMENT_LENGTH = 10 * 1024;

export interface OutgoingCall {
  method: string;
  /** Secrets in it are redacted when the report is encoded, as every URL of a report. */
  url: string;
  /** Milliseconds from the request's arrival. */
  start: number;
  /** Milliseconds to the end of the response body (or of its headers, when the body was not read); null while running. */
  duration: number | null;
  status: number | null;
  /** Bytes, from Content-Length or a body of known size; null when unknown. */
  requestSize: number | null;
  responseSize: number | null;
  /** `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`, when the call failed. */
  error: string | null;
  /** `src/orders.ts:42`: the application's line that made the call; null when a library's callback made it. */
  site: string | null;
}

export interface StatementRecord {
  /** The statement as sent, parameters as placeholders; never the parameters' values. */
  text: string;
  /** `postgresql`, `mysql`, ... */
  system: string;
  start: number;
  duration: number | null;
  rows: number | null;
  site: string | null;
  error: boolean;
}

export class RequestActivity {
  readonly calls: OutgoingCall[] = [];
  callsOmitted = 0;
  readonly statements: StatementRecord[] = [];
  statementsOmitted = 0;
  /** The trace id of the first OpenTelemetry span the request's code started. */
  traceId: string | null = null;
  /**
   * The application's line seen last: a library that runs a statement from a callback (a
   * pool handing out a client) shows no application frame, and the line that asked the
   * library for it (its pool's connect span) is the best guess.
   */
  lastSite: string | null = null;

  constructor(readonly scope: RequestScope) {}

  /** Milliseconds since the request arrived. */
  since(now: number): number {
    return round(now - this.scope.origin);
  }

  /** A new call, or undefined over the bound (then counted). */
  addCall(call: OutgoingCall): OutgoingCall | undefined {
    if (this.calls.length >= MAX_CALLS) {
      this.callsOmitted++;
      return undefined;
    }
    this.calls.push(call);
    return call;
  }

  addStatement(statement: StatementRecord): void {
    if (this.statements.length >= MAX_STATEMENTS) {
      this.statementsOmitted++;
      return;
    }
    this.statements.push({ ...statement, text: cutString(statement.text, MAX_STATEMENT_LENGTH) });
  }
}

const activities = new WeakMap<RequestScope, RequestActivity>();

/** Starts recording what the request of `scope` does; idempotent. */
export function watchActivity(scope: RequestScope): RequestActivity {
  let activity = activities.get(scope);
  if (activity === undefined) activities.set(scope, (activity = new RequestActivity(scope)));
  return activity;
}

export function activityOf(scope: RequestScope): RequestActivity | undefined {
  return activities.get(scope);
}

/** The record of the profiled request whose code is running, while it records. */
export function currentActivity(): RequestActivity | undefined {
  const scope = currentScope();
  return scope && activities.get(scope);
}

/** The application's line that is running, as `path/from/root.ts:line`. */
export function callSite(): string | null {
  const frame = applicationCallSite();
  return frame ? `${relative(projectRoot(), frame.file)}:${frame.line}` : null;
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
