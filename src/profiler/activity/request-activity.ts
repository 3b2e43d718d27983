/**
 * What the application did while a request ran, as seen from outside its code: the HTTP
 * calls it made and the database statements it ran. One record per profiled request, kept
 * on its scope (`http/request-scope.ts`) and found through it, so that whatever a
 * library reports (a diagnostics channel, a trace span) is filed under the request whose
 * code was running, and under no other. Bounded: what is over a bound is counted.
 */
import { hash } from 'node:crypto';
import { relative } from 'node:path';
import { applicationCallSite, DEEP_STACK } from '../../debug/call-site.js';
import type { StackFrame } from '../../debug/stack-trace.js';
import { projectRoot } from '../../debug/project-root.js';
import { askForScopes, currentScope, type RequestScope, type SpanRecord } from '../../http/request-scope.js';
import { ownCopy } from '../../utils/own-copy.js';
import { cutString } from '../model/report-bounds.js';
import type { CallExchange } from './call-exchange.js';
import { spansNotSeenByChannels } from './seen-twice.js';
import { noteEntrySpan } from './span-requests.js';

/** Identical statements from one looked-up line after which the next database call takes no stack. */
export const RUN_BEFORE_SKIP = 2;

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
  /** True when `site` is the line found on earlier requests to the route, not looked up in this one. */
  siteRecalled?: true;
  /** Its headers and the start of its response body, raw until the report is made. */
  exchange?: CallExchange;
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
  /**
   * Absent when the stack was looked at. False when it was not, the statement coming right
   * after a run of identical ones from one line: `site` is then that run's line if the
   * statement has the run's text, and null if not.
   */
  siteLookedUp?: false;
  /** True when `site` is the line found on earlier requests to the route, not looked up in this one. */
  siteRecalled?: true;
  error: boolean;
}

/** The calls that look for the application's line: each kind is counted, and remembered, apart. */
type SiteKind = 'database' | 'fetch' | 'http';

/** A call's line, looked up in this request or recalled from earlier ones to its route. */
export interface FoundSite {
  site: string | null;
  recalled: boolean;
}

/**
 * A route's calls come from the same lines request after request, and taking a stack is most
 * of what capturing costs. The n-th call of a kind in a request to a route, with the same
 * fingerprint (a statement's text, a call's origin), is looked up until it found the same
 * line on {@link TRUST_AFTER} requests in a row; the next {@link RECALLS_BETWEEN_CHECKS}
 * take that line, marked as recalled, and the one after looks again. Another fingerprint at
 * that place, or another line, starts the count over.
 */
export const TRUST_AFTER = 3;
export const RECALLS_BETWEEN_CHECKS = 63;
/** Calls of a kind per request whose lines are remembered; later ones are always looked up. */
const REMEMBERED_PER_REQUEST = 64;
/**
 * Routes remembered at most, calls over all of them, and lines seen repeating a statement:
 * all of a kind are forgotten when one more comes.
 */
const REMEMBERED_ROUTES = 1000;
const REMEMBERED_CALLS = 8192;
const REPEATING_LINES = 1000;
/** Longest fingerprint remembered as it is: a longer one is remembered by its hash. */
const MAX_KEY_LENGTH = 128;

/** What the memory keeps of a fingerprint: bounded, whatever the statement's length. */
function memoryKey(fingerprint: string): string {
  return fingerprint.length <= MAX_KEY_LENGTH ? fingerprint : `#${hash('sha256', fingerprint, 'base64url')}`;
}

interface RememberedSite {
  /** The call's fingerprint, as {@link memoryKey} keeps it. */
  fingerprint: string;
  /** Null: the call had no line of the application (a library's callback made it). */
  site: string | null;
  /** Requests in a row that found `site`. */
  agreed: number;
  /** Requests that took it since it was last looked up. */
  recallsSinceCheck: number;
}

type RouteLines = Record<SiteKind, Array<RememberedSite | undefined>>;

/**
 * What one debug instance remembers of the lines behind the application's calls, so that
 * it stops taking stacks for them: each route's (see {@link TRUST_AFTER}), and the lines
 * seen running one statement text {@link RUN_BEFORE_SKIP} times in a row (loops). Kept by
 * the instance's collectors: closing the instance forgets it.
 */
export class SiteMemory {
  /** By route pattern, then method: strings Fastify hands out again and again, hashed once. */
  private readonly routes = new Map<string, Map<string, RouteLines>>();
  private routeCount = 0;
  private callCount = 0;
  /** Statement texts (their {@link memoryKey}) by the line seen repeating each. */
  private readonly repeating = new Map<string, Set<string>>();
  private repeatingCount = 0;

  linesOf(pattern: string, method: string): RouteLines {
    let methods = this.routes.get(pattern);
    if (methods === undefined) {
      if (this.routeCount >= REMEMBERED_ROUTES) this.forgetRoutes();
      this.routes.set(pattern, (methods = new Map()));
    }
    let lines = methods.get(method);
    if (lines === undefined) {
      methods.set(method, (lines = { database: [], fetch: [], http: [] }));
      this.routeCount++;
    }
    return lines;
  }

  /** Remembers the line of the call at `place` of a route's `lines`, `key` its {@link memoryKey}. */
  remember(lines: Array<RememberedSite | undefined>, place: number, key: string, site: string | null): void {
    if (lines[place] === undefined) {
      if (this.callCount >= REMEMBERED_CALLS) this.forgetRoutes();
      this.callCount++;
    }
    // A key cut from a longer text would keep that text alive.
    lines[place] = { fingerprint: ownCopy(key), site, agreed: 1, recallsSinceCheck: 0 };
  }

  private forgetRoutes(): void {
    this.routes.clear();
    this.routeCount = 0;
    this.callCount = 0;
  }

  isRepeating(site: string, text: string): boolean {
    return this.repeating.get(site)?.has(memoryKey(text)) === true;
  }

  rememberRepeating(site: string, text: string): void {
    if (this.repeatingCount >= REPEATING_LINES) {
      this.repeating.clear();
      this.repeatingCount = 0;
    }
    let texts = this.repeating.get(site);
    if (texts === undefined) this.repeating.set(site, (texts = new Set()));
    const key = memoryKey(text);
    if (!texts.has(key)) {
      texts.add(ownCopy(key));
      this.repeatingCount++;
    }
  }
}

/**
 * A source of statements and spans that files little while the calls run and builds its
 * records only when they are asked for (a span processor: see `span-processor.ts`), so that
 * the calls themselves cost as little as they can.
 */
export interface LateRecords {
  /** The spans to draw on the waterfall, in start order. */
  spans(): SpanRecord[];
  /** The statements, in start order. */
  statements(): StatementRecord[];
}

/** What a request is asked for its route: Fastify's request has both. */
interface RoutedRequest {
  method: string;
  routeOptions: { url?: string | undefined };
}

export class RequestActivity {
  readonly calls: OutgoingCall[] = [];
  callsOmitted = 0;
  /** Statements filed as they ended (a query channel's), in end order. */
  private readonly filed: StatementRecord[] = [];
  /** Sources of statements and spans read when asked (see {@link LateRecords}). */
  private readonly late: LateRecords[] = [];
  /** Statements taken so far, filed or late (see {@link takeStatementPlace}). */
  private statementPlaces = 0;
  statementsOmitted = 0;
  /** The trace id of the first OpenTelemetry span the request's code started. */
  traceId: string | null = null;
  /**
   * The application's line seen last by a database span: the best guess for a statement
   * whose span shows no application frame and has no database parent to take one from.
   */
  lastSite: string | null = null;
  /** The latest run of identical statements from one looked-up line. */
  private runText: string | null = null;
  private runSite: string | null = null;
  private runLength = 0;

  /** Calls of each kind so far that looked for their line. */
  private readonly siteCalls: Record<SiteKind, number> = { database: 0, fetch: 0, http: 0 };
  /** This route's remembered lines, once a call asked; undefined for an unrouted request. */
  private routeLines: RouteLines | undefined;

  /** The route's pattern and method, read when a call first asks (null until then). */
  private route: { pattern: string; method: string } | undefined | null = null;

  constructor(
    readonly scope: RequestScope,
    private readonly memory: SiteMemory = new SiteMemory(),
    /** Without a route's pattern (an unrouted request), lines are never recalled. */
    private readonly request?: RoutedRequest,
  ) {}

  /** Read once, and only by a request that makes calls: Fastify builds `routeOptions` anew at each read. */
  private routeOf(): { pattern: string; method: string } | undefined {
    if (this.route === null) {
      const pattern = this.request?.routeOptions.url;
      this.route = pattern === undefined ? undefined : { pattern, method: this.request!.method };
    }
    return this.route;
  }

  /**
   * The line behind the request's next call of `kind`, whose `fingerprint` says what it is
   * (a statement's text, a call's origin): recalled from earlier requests to the route when
   * it has been the same there (see {@link TRUST_AFTER}), otherwise `lookUp`'s. A call
   * found to have no line of the application (null) is remembered so too, but only a line
   * is marked recalled.
   */
  siteFor(kind: SiteKind, fingerprint: string, lookUp: () => string | null): FoundSite {
    const place = this.siteCalls[kind]++;
    const route = this.routeOf();
    if (route === undefined || place >= REMEMBERED_PER_REQUEST) return { site: lookUp(), recalled: false };
    this.routeLines ??= this.memory.linesOf(route.pattern, route.method);
    const lines = this.routeLines[kind];
    const known = lines[place];
    const key = memoryKey(fingerprint);
    if (
      known !== undefined &&
      known.fingerprint === key &&
      known.agreed >= TRUST_AFTER &&
      known.recallsSinceCheck < RECALLS_BETWEEN_CHECKS
    ) {
      known.recallsSinceCheck++;
      // No line is no line, however it is known: only a line shown is marked recalled.
      return { site: known.site, recalled: known.site !== null };
    }
    const site = lookUp();
    if (known !== undefined && known.fingerprint === key && known.site === site) {
      known.agreed++;
      known.recallsSinceCheck = 0;
    } else this.memory.remember(lines, place, key, site);
    return { site, recalled: false };
  }

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

  /**
   * A database call being started skips its stack: the statements before it were one text
   * from one line, at least {@link RUN_BEFORE_SKIP} times, or once from a line seen running
   * that text in a row before. `text`, when already known, must be the run's.
   */
  skipsSite(text?: string): boolean {
    if (this.runLength === 0 || (text !== undefined && text !== this.runText)) return false;
    return this.runLength >= RUN_BEFORE_SKIP || this.memory.isRepeating(this.runSite!, this.runText!);
  }

  /** The run's line, for a statement of `text` whose stack was skipped; null for another text. */
  runSiteFor(text: string): string | null {
    return text === this.runText ? this.runSite : null;
  }

  /** Keeps `statement` itself, its text cut to the bound: the caller hands it over. */
  addStatement(statement: StatementRecord): void {
    this.followRun(statement.text, statement.site, statement.siteLookedUp !== false);
    if (!this.takeStatementPlace()) return;
    statement.text = cutString(statement.text, MAX_STATEMENT_LENGTH);
    this.filed.push(statement);
  }

  /** Takes one of the request's {@link MAX_STATEMENTS} places; false (and counted) past them. */
  takeStatementPlace(): boolean {
    if (this.statementPlaces >= MAX_STATEMENTS) {
      this.statementsOmitted++;
      return false;
    }
    this.statementPlaces++;
    return true;
  }

  addLateRecords(source: LateRecords): void {
    this.late.push(source);
  }

  /** Every statement so far, filed or late, in start order; one seen by a span and a channel once. */
  statements(): StatementRecord[] {
    if (this.late.length === 0) return [...this.filed].sort((a, b) => a.start - b.start);
    if (this.late.length === 1 && this.filed.length === 0) return this.late[0]!.statements();
    const late = this.late.flatMap((source) => source.statements());
    return spansNotSeenByChannels(late, this.filed)
      .concat(this.filed)
      .sort((a, b) => a.start - b.start);
  }

  /** The spans of the request's libraries, as the waterfall draws them, in start order. */
  lateSpans(): SpanRecord[] {
    if (this.late.length === 1) return this.late[0]!.spans();
    return this.late.flatMap((source) => source.spans()).sort((a, b) => a.start - b.start);
  }

  /**
   * Follows runs of one statement text from one line, for {@link skipsSite}: `site` is the
   * statement's line, `lookedUp` false when its stack was skipped.
   */
  followRun(text: string, site: string | null, lookedUp: boolean): void {
    if (!lookedUp) {
      // A skipped statement of another text ends the run: the next call looks again.
      if (text !== this.runText) this.runLength = 0;
    } else if (site !== null && text === this.runText && site === this.runSite) {
      if (++this.runLength === RUN_BEFORE_SKIP) this.memory.rememberRepeating(site, text);
    } else {
      this.runText = text;
      this.runSite = site;
      this.runLength = site === null ? 0 : 1;
    }
  }
}

/** Starts recording what the request of `scope` does, its lines remembered in `memory`; idempotent. */
export function watchActivity(scope: RequestScope, memory?: SiteMemory, request?: RoutedRequest): RequestActivity {
  let activity = activityOf(scope);
  if (activity === undefined) {
    activity = new RequestActivity(scope, memory, request);
    scope.activity = activity;
    noteEntrySpan(scope);
  }
  return activity;
}

/**
 * Arms `scope` for its request's calls and statements: the record is made when the first one
 * asks ({@link activityFor}). The OpenTelemetry span active as the request comes in is noted now.
 */
export function followActivity(scope: RequestScope, memory: SiteMemory): void {
  // The database's and the HTTP client's collectors both arm it: the entry span is noted once.
  if (scope.activitySites !== undefined || scope.activity !== undefined) return;
  scope.activitySites = memory;
  noteEntrySpan(scope);
}

/** The record of `scope`'s request, made now if it is armed and still recording; undefined otherwise. */
export function activityFor(scope: RequestScope): RequestActivity | undefined {
  const activity = activityOf(scope);
  if (activity !== undefined || scope.activitySites === undefined || !scope.open) return activity;
  const made = new RequestActivity(
    scope,
    scope.activitySites as SiteMemory,
    scope.request as RoutedRequest | undefined,
  );
  scope.activity = made;
  return made;
}

export function activityOf(scope: RequestScope): RequestActivity | undefined {
  // Only this module sets it.
  return scope.activity as RequestActivity | undefined;
}

/** The record of the profiled request whose code is running, while it records. */
export function currentActivity(): RequestActivity | undefined {
  const scope = currentScope();
  // A statement or call outside any request: production's requests follow their context from now on.
  if (scope === undefined) askForScopes();
  return scope && activityFor(scope);
}

/**
 * Frames looked at first for a span's site, below the span processor: the SDK's processor
 * list, the span, the tracer, the instrumentation's wrapper, the library's function and
 * then the application's call. A stack that goes on without it is looked at again, deeper.
 * Each frame captured is paid for on every statement.
 */
const SPAN_STACK_DEPTH = 6;

/** Sites by mapped frame: the same few lines make most calls. */
const sites = new WeakMap<object, string>();

/** A function on the stack: it and the frames above it are not captured. */
type Caller = (...args: never[]) => unknown;

/** The application's line behind a span being started from `above` (the span processor's `onStart`). */
export function spanCallSite(above: Caller = spanCallSite): string | null {
  const { frame, complete, frames } = applicationCallSite(SPAN_STACK_DEPTH, above);
  // `above` not on the stack (called through a wrapper): from here then.
  if (frames === 0 && above !== spanCallSite) return spanCallSite();
  if (frame !== undefined || complete) return siteOf(frame);
  return siteOf(applicationCallSite(DEEP_STACK, above).frame);
}

/** Frames looked at first below `fetch`: its caller; then a wrapper library or two and the caller. */
const BELOW_FETCH_FIRST = 1;
const BELOW_FETCH_DEPTH = 8;

/** The application's line that is running, as `path/from/root.ts:line`. */
export function callSite(): string | null {
  return siteOf(applicationCallSite(DEEP_STACK, callSite).frame);
}

/**
 * The line that called `fetch`. undici's own frames, many, sit between its channel and
 * the caller: the stack is taken from below the global `fetch` when it is on it, and whole
 * otherwise (undici's own API).
 */
export function fetchCallSite(): string | null {
  const fetch = globalThis.fetch as Caller | undefined;
  if (fetch === undefined) return callSite();
  const frame = frameBelow(fetch);
  return frame ? siteOf(frame) : callSite();
}

/** The line that called `callee`, from the stack below it: its caller, or through a wrapper library or two. */
export function callerSite(callee: Caller): string | null {
  return siteOf(frameBelow(callee));
}

function frameBelow(callee: Caller): StackFrame | undefined {
  const { frame, complete } = applicationCallSite(BELOW_FETCH_FIRST, callee);
  return frame !== undefined || complete ? frame : applicationCallSite(BELOW_FETCH_DEPTH, callee).frame;
}

function siteOf(frame: StackFrame | undefined): string | null {
  if (frame === undefined) return null;
  let site = sites.get(frame);
  if (site === undefined) sites.set(frame, (site = `${relative(projectRoot(), frame.file)}:${frame.line}`));
  return site;
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
