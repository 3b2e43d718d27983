/**
 * The profiler: marks the stages each request goes through, lets collectors fill its report, and
 * hands the report to the writer once the response is sent (Symfony's "terminate" stage). In
 * debug mode every request gets a token as it arrives; in production (PROFILER_KEEP) the report
 * is decided as the request ends (`keep-policy.ts`), and only a kept one gets a token and is
 * made. Tokens come from the store in leased blocks (`token.ts`), so every process writing one
 * store hands out different ones.
 */
import { ProfilerOverview } from './profiler-overview.js';
import { sampleOfRequest } from './request-sample.js';
import { raisedError, type RaisedError } from './collectors/exception.js';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { performance } from 'node:perf_hooks';
import { reportUrl } from '../debug/request-debug.js';
import { RequestScope, scopesAsked } from '../http/request-scope.js';
import { TokenSource } from './tokens/token.js';
import { stateOf } from '../http/request-state.js';
import { requestOrigin, requestUrlWithQuery } from '../http/request-url.js';
import { describeFailure } from '../utils/describe-failure.js';
import { ProfilerAccess, type AccessSettings, type ProfilerRefusal } from './access/access.js';
import { settlePageHeaders } from './access/page-headers.js';
import { ProfilerGate } from './access/profiler-gate.js';
import type { ProductionAccess } from './access/production-access.js';
import { isCollectorError, type Report } from './model/report.js';
import type { KeepSettings } from './writer/keep-policy.js';
import { KeptReports } from './writer/kept-reports.js';
import { finishWhenHijacked, proceed } from './request-way.js';
import { ConnectionWatch } from './connection-watch.js';
import { PacedFailureLog } from '../utils/failure-log.js';
import { ReadTimeStore } from './storage/read-time-store.js';
import { Redactor } from './redaction/redact.js';
import {
  ReportWriter,
  type ProfilerStats,
  type ReportWriterOptions,
  type WriterCounters,
} from './writer/report-writer.js';
import type { Collector, CollectorContext, RequestProfile, StageMarks } from './model/request-profile.js';
import { ReportStoreUnavailableError, type ReportStore, type Retention } from './storage/report-store.js';

/** Status recorded for a request whose client left before its response was written (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;

const TOKEN_LEASE_FAILED = 'token lease failed';
/** How long close() waits for the requests still running to queue their reports. */
const CLOSE_GRACE_MS = 2000;

export interface ProfilerOptions {
  /** The sections of every report, in panel order. */
  collectors: readonly Collector[];
  /** Header and query names redacted besides the built-in secrets. */
  redact?: readonly string[];
  /** Networks besides loopback that may open the profiler. */
  allow?: readonly string[];
  /** vigil's TRUSTED_PROXIES (the only peers whose X-Forwarded-For is believed), HOST and TRUSTED_HOSTS. */
  access?: AccessSettings;
  /** Production: who may open the pages, instead of loopback and PROFILER_ALLOW; no one sees debug output. */
  production?: ProductionAccess;
  retention?: Retention;
  /**
   * The counters of the other processes serving beside this one (WORKERS above 1), summed:
   * the pages show every process's reports waiting, dropped and deleted, not this one's alone.
   */
  peers?: () => WriterCounters;
  /** Production: which reports are kept, decided as each request ends; absent in debug mode, which keeps every one. */
  keep?: KeepSettings | undefined;
  /** Tuning of the batched writer (tests use a small queue). */
  writer?: Pick<ReportWriterOptions, 'maxQueue' | 'batchSize' | 'flushDelayMs' | 'idlePurgeMs' | 'retentionLeaseMs'>;
  /** How long the overview's minutes are kept (PROFILER_OVERVIEW_RETENTION); how often they are flushed (tests flush often). */
  overview?: { retentionMs: number; flushMs?: number };
  /** The server speaks HTTP/2, whose clients leave a request without closing its connection. */
  http2?: boolean;
}

/** The overview's minutes are kept a week unless said otherwise. */
const OVERVIEW_RETENTION_MS = 7 * 86_400_000;

/** The scope and data of a profile whose collectors have not started (see {@link RequestProfile.started}). */
const UNSTARTED_SCOPE = new RequestScope(0);
UNSTARTED_SCOPE.close();
const UNSTARTED_DATA: Record<string, unknown> = Object.freeze({});

/** The raise of an error not kept, for the overview; an error whose stack cannot be read is counted without. */
function raisedOrNothing(error: Error): RaisedError | undefined {
  try {
    return raisedError(error);
  } catch {
    return undefined;
  }
}

export class Profiler {
  /** The store the reports are written to; what is read from it comes out derived (see {@link derive}). */
  readonly store: ReportStore;
  readonly collectors: Collector[];
  readonly redactor: Redactor;
  readonly access: ProfilerAccess;
  readonly production: ProductionAccess | undefined;
  private readonly gate: ProfilerGate;
  writer!: ReportWriter;
  /** Every finished request counted, across requests: `/_profiler/overview`. */
  overview!: ProfilerOverview;
  private tokens!: TokenSource;
  private leaseFailures: PacedFailureLog | undefined;
  /** Profiles begun and not yet finished: close() waits for them, within CLOSE_GRACE_MS. */
  private unfinished = 0;
  private allFinished: (() => void) | undefined;
  private log: FastifyBaseLogger | undefined;
  /** Production's reports, kept by their outcome; undefined in debug mode. */
  private keep: KeptReports | undefined;
  /**
   * The collectors' `start` and `discard`, those they have, in their order: each collector
   * has its own shape, and reading the method of each at every request would be a lookup
   * V8 cannot specialise.
   */
  private starts: Array<(context: CollectorContext) => void> = [];
  private discards: Array<(context: CollectorContext) => void> = [];
  /** Every collector's `start` may wait for the request's end (see {@link Collector.startsLate}). */
  private startsWait = false;
  /** HTTP/1: clients gone are seen as their connections close; HTTP/2 needs the onRequestAbort hook. */
  private readonly connections: ConnectionWatch | undefined;

  private constructor(
    store: ReportStore,
    private readonly options: ProfilerOptions,
  ) {
    this.store = new ReadTimeStore(store, (report) => this.derive(report));
    this.collectors = [...options.collectors];
    this.listHooks();
    this.redactor = new Redactor(options.redact);
    this.access = new ProfilerAccess(options.allow, options.access);
    this.production = options.production;
    this.gate = new ProfilerGate(this.access, this.production);
    this.connections = options.http2 ? undefined : new ConnectionWatch((request) => this.clientGone(request));
  }

  /** Whether clients gone are seen by their connections; if not, the onRequestAbort hook tells {@link clientGone}. */
  get watchesConnections(): boolean {
    return this.connections !== undefined;
  }

  /** The request's client left before its answer was written: its report is made now. */
  clientGone(request: FastifyRequest): void {
    const profile = request.vigil?.profile;
    if (profile) profile.aborted = true;
    this.finish(request);
  }

  get retention(): Retention | undefined {
    return this.options.retention;
  }

  /** Adds a collector; its section appears in every report written after. */
  addCollector(collector: Collector): void {
    this.collectors.push(collector);
    this.listHooks();
  }

  private listHooks(): void {
    this.starts = this.collectors.flatMap((collector) => (collector.start ? [collector.start.bind(collector)] : []));
    this.discards = this.collectors.flatMap((collector) =>
      collector.discard ? [collector.discard.bind(collector)] : [],
    );
    this.startsWait = this.collectors.every((collector) => !collector.start || collector.startsLate === true);
  }

  /**
   * The profiler's first hook, before every other of the kernel's: the request gets its
   * token and profile, so that even a request refused by a later hook has its report. The
   * profiler's own answers get their headers settled (`page-headers.ts`), and its pages no token.
   */
  readonly tokenHook: onRequestHookHandler = (request, reply, done) => {
    // Production: every request is followed, without a token until its report is kept (see finish);
    // the profiler's own pages are not (production-access.ts answers them, when something opens them).
    if (this.keep) {
      if (this.production !== undefined && this.speaksFor(request)) return done();
      // Collectors start as the request arrives only when they must: most requests are not kept.
      const startNow = !this.startsWait || scopesAsked();
      return proceed(request, this.begin(request, reply, '', startNow), done, true);
    }
    if (this.speaksFor(request)) {
      settlePageHeaders(reply.raw);
      if (this.serves(request)) return done();
    }
    // A queue the store does not keep up with: the report is dropped now, before it costs
    // anything, and the answer carries no token that would not open.
    const full = this.writer.refusal();
    if (full) {
      this.writer.discard(1, full);
      return done();
    }
    const token = this.tokens.issue();
    if (token !== undefined) return proceed(request, this.begin(request, reply, token), done);
    // None at hand: a burst outran the lease under way. This request waits for it, briefly (see TokenSource.take).
    this.tokens
      .take()
      .then((late) => {
        if (late !== undefined) return proceed(request, this.begin(request, reply, late), done);
        this.writer.discard(1, 'no token could be leased from the store');
        done();
      })
      .catch((error: Error) => done(error));
  };

  /**
   * The profiler, ready: the store opened, the retention applied and the first tokens leased.
   * A store that cannot lease now (a full disk) does not stop the start: requests go without
   * a report, counted as dropped, until it can. Its hooks after the first (see
   * {@link tokenHook}) are the stage hooks of `stage-hooks.ts`.
   */
  static async create(store: ReportStore, options: ProfilerOptions, log: FastifyBaseLogger): Promise<Profiler> {
    const profiler = new Profiler(store, options);
    await profiler.open(log);
    return profiler;
  }

  private async open(log: FastifyBaseLogger): Promise<void> {
    this.log = log;
    await this.store.open();
    this.writer = new ReportWriter(this.store, {
      ...this.options.writer,
      retention: this.options.retention,
      log,
      redactor: this.redactor,
    });
    const failures = new PacedFailureLog(log);
    this.leaseFailures = failures;
    this.tokens = new TokenSource((count) => this.store.leaseTokens(count), {
      // A store that cannot be reached may take seconds to say so: it is retried in the background.
      backOff: (error) => error instanceof ReportStoreUnavailableError,
      ...(this.store.leaseWaitMs === undefined ? {} : { waitMs: this.store.leaseWaitMs }),
      onLeaseFailed: (error) => failures.failed(TOKEN_LEASE_FAILED, describeFailure(error)),
      onLeaseStalled: (waitMs) =>
        failures.failed(
          TOKEN_LEASE_FAILED,
          `the report store ${this.store.location} did not answer within ${waitMs} ms; requests go without a token until it does`,
        ),
      onLeaseRecovered: () => failures.succeeded(TOKEN_LEASE_FAILED),
    });
    if (this.options.keep)
      this.keep = new KeptReports(this.options.keep, this.tokens, this.writer, (message) => log.warn(message));
    await this.writer.open();
    await this.tokens.fill();
    this.overview = new ProfilerOverview({
      store: this.store,
      retentionMs: this.options.overview?.retentionMs ?? OVERVIEW_RETENTION_MS,
      ...(this.options.overview?.flushMs === undefined ? {} : { flushMs: this.options.overview.flushMs }),
      warn: (message) => log.warn(message),
    });
    this.overview.start();
  }

  /**
   * Profiles a request Fastify refused before routing (a malformed URL), for which no hook
   * runs: its token is issued here, and its report is written once its answer is.
   */
  adopt(request: FastifyRequest, reply: FastifyReply, error: Error): void {
    if (request.vigil?.profile) return;
    const token = this.keep ? '' : this.tokenAtHand();
    if (token === undefined) return;
    const profile = this.begin(request, reply, token);
    profile.error = error;
    profile.marks.error = performance.now();
    reply.raw.once('close', () => {
      profile.aborted = !reply.raw.writableFinished;
      this.finish(request);
    });
  }

  /** No hook runs for these requests, so there is no waiting for a lease: without a token at hand the report is dropped. */
  private tokenAtHand(): string | undefined {
    const full = this.writer.refusal();
    if (full) return void this.writer.discard(1, full);
    const token = this.tokens.issue();
    if (token === undefined) this.writer.discard(1, 'no token could be leased from the store');
    return token;
  }

  /**
   * The token of the request's report, for its error's log line. In production, when
   * PROFILER_KEEP keeps errors, this error decides it: the report is kept (within the bound)
   * and its token leased now. Undefined when no report is kept, or no token was at hand yet.
   */
  reportToken(request: FastifyRequest): string | undefined {
    const profile = request.vigil?.profile;
    if (!profile) return undefined;
    return this.keep ? this.keep.tokenAtError(profile) : profile.token;
  }

  /** The error the request is answered with, and when it was raised (the onError stage). */
  noteError(request: FastifyRequest, error: Error): void {
    const profile = request.vigil?.profile;
    if (profile) {
      profile.error = error;
      profile.marks.error = performance.now();
    }
  }

  /** Why a request to a profiler page is refused (see {@link ProfilerGate.refuses}). */
  refuses(request: FastifyRequest): ProfilerRefusal | undefined {
    return this.gate.refuses(request);
  }

  /** True for a request to a page the profiler serves, to a client it opens to (see {@link ProfilerGate.serves}). */
  serves(request: FastifyRequest): boolean {
    return this.gate.serves(request);
  }

  /** True for a request to a profiler page from a client it admits, served or refused. */
  speaksFor(request: FastifyRequest): boolean {
    return this.gate.speaksFor(request);
  }

  /** True when the request's client may see debug output (never in production). */
  admits(request: FastifyRequest): boolean {
    return this.gate.admits(request);
  }

  /** A request for one of the profiler's pages, routed or not. */
  isProfilerRequest(request: FastifyRequest): boolean {
    return this.gate.isProfilerRequest(request);
  }

  async close(): Promise<void> {
    if (this.writer) {
      await this.requestsFinished();
      await this.writer.close();
      const { written, dropped } = this.writer;
      this.log?.[dropped > 0 ? 'warn' : 'info'](`Debug reports: ${written} written, ${dropped} dropped`);
    }
    await this.overview?.close();
    this.tokens?.close();
    this.leaseFailures?.flush();
    this.keep?.flush();
    for (const collector of this.collectors) collector.close?.();
    await this.store.close();
  }

  /**
   * Connections cut at shutdown abort their requests a moment after the server has closed:
   * their reports come through {@link clientGone}, and are queued before the writer closes.
   */
  private async requestsFinished(): Promise<void> {
    if (this.unfinished === 0) return;
    let grace: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.allFinished = resolve;
      grace = setTimeout(resolve, CLOSE_GRACE_MS);
    });
    clearTimeout(grace);
    this.allFinished = undefined;
  }

  /** A stored or still queued report, with what its collectors derive when it is read. */
  async read(token: string): Promise<Report | undefined> {
    const pending = this.writer.pending(token);
    return pending ? this.derive(pending) : await this.store.read(token);
  }

  /**
   * The report with each section its collector derives at read time (a copy: a queued report
   * is encoded as collected). A failing derivation leaves its section as stored.
   */
  derive(report: Report): Report {
    let collectors: Record<string, unknown> | undefined;
    for (const collector of this.collectors) {
      const section = report.collectors[collector.name];
      if (!collector.derive || section === undefined || isCollectorError(section)) continue;
      try {
        collectors ??= { ...report.collectors };
        collectors[collector.name] = collector.derive(section, report);
      } catch {
        // The stored facts are still worth showing.
      }
    }
    return collectors ? { ...report, collectors } : report;
  }

  /** Calls `listener` whenever this process's writer counters change. */
  onCountersChange(listener: () => void): void {
    this.writer.onCountersChange = listener;
  }

  /** This process's writer counters since start. */
  counters(): WriterCounters {
    return { queued: this.writer.queued, dropped: this.writer.dropped, purged: this.writer.purged };
  }

  /** The store's count, and the counters of every process writing it (this one's and its peers'). */
  async stats(): Promise<ProfilerStats> {
    const own = this.counters();
    const peers = this.options.peers?.() ?? { queued: 0, dropped: 0, purged: 0 };
    return {
      stored: await this.store.count(),
      queued: own.queued + peers.queued,
      dropped: own.dropped + peers.dropped,
      purged: own.purged + peers.purged,
      retention: this.options.retention,
    };
  }

  /**
   * Gives the request its token and profile, announces the token and starts the collectors
   * (unless `startNow` is false: production's, see {@link RequestProfile.started}).
   */
  private begin(request: FastifyRequest, reply: FastifyReply, token: string, startNow = true): RequestProfile {
    const start = performance.now();
    // Two flat literals: V8 copies a literal nested in another through a slower walk.
    const marks: StageMarks = {
      start,
      parsing: undefined,
      handler: undefined,
      error: undefined,
      send: undefined,
      end: undefined,
    };
    // Every field from the start, set later or not: one shape for every profile.
    const profile: RequestProfile = {
      token,
      kept: undefined,
      time: Date.now(),
      // Read as the report is made where the connection is watched, which keeps the peer known (ConnectionWatch.follow).
      ip: this.connections === undefined ? (request.ip ?? '') : '',
      marks,
      error: undefined,
      aborted: false,
      responseBody: undefined,
      scope: startNow ? new RequestScope(start, request) : UNSTARTED_SCOPE,
      started: startNow,
      routePattern: undefined,
      data: startNow ? {} : UNSTARTED_DATA,
      reply,
    };
    const state = stateOf(request);
    state.profile = profile;
    // Recorded for everyone, announced only to whom may open the profiler; production's comes later, unannounced.
    if (token !== '') {
      state.token = token;
      if (this.admits(request)) {
        reply.header('x-debug-token', token);
        reply.header('x-debug-token-link', reportUrl(requestOrigin(request), token));
      }
    }
    this.unfinished++;
    this.connections?.follow(request);
    if (request.headers.upgrade !== undefined) finishWhenHijacked(reply, () => this.finish(request));
    if (startNow) this.start(this.contextFor(request, reply, profile));
    return profile;
  }

  private start(context: CollectorContext): void {
    const { starts } = this;
    for (let i = 0; i < starts.length; i++) starts[i]!(context);
  }

  /** A kept report's collectors, started as its request ends (see {@link RequestProfile.started}). */
  private startLate(context: CollectorContext): void {
    const { profile } = context;
    profile.scope = new RequestScope(profile.marks.start, context.request);
    profile.data = {};
    profile.started = true;
    this.start(context);
  }

  private contextFor(request: FastifyRequest, reply: FastifyReply, profile: RequestProfile): CollectorContext {
    return { request, reply, profile, redactor: this.redactor };
  }

  /**
   * Collects and queues the report, once (when the response is sent, or the client gone):
   * the profile is detached from the request first.
   */
  finish(request: FastifyRequest): void {
    const profile = request.vigil?.profile;
    const reply = profile?.reply;
    if (!profile || !reply) return;
    request.vigil!.profile = null;
    profile.reply = undefined;
    this.connections?.unfollow(request);
    if (--this.unfinished === 0) this.allFinished?.();
    profile.marks.end = performance.now();
    const context = this.contextFor(request, reply, profile);
    if (!this.keep || this.keep.keeps(profile, reply.statusCode)) {
      // Read now where the connection is watched, which keeps the peer known (see begin).
      if (this.connections !== undefined) profile.ip = request.ip ?? '';
      if (!profile.started) this.startLate(context);
      const report = this.report(context);
      this.overview.record(
        sampleOfRequest(context, {
          status: report.status,
          durationMs: report.duration,
          token: report.token || null,
          exception: report.collectors.exception,
        }),
      );
      if (this.keep) this.keep.queue(report);
      else this.writer.enqueue(report);
    } else {
      // Not kept: counted in the overview, then what the collectors hold for the request is let go.
      this.overview.record(
        sampleOfRequest(context, {
          status: profile.aborted ? CLIENT_CLOSED_REQUEST : reply.statusCode,
          durationMs: profile.marks.end - profile.marks.start,
          token: null,
          exception: profile.error ? raisedOrNothing(profile.error) : undefined,
        }),
      );
      const { discards } = this;
      for (let i = 0; i < discards.length; i++) discards[i]!(context);
    }
    if (profile.started) profile.scope.close();
  }

  private report(context: CollectorContext): Report {
    const { request, reply, profile } = context;
    const collectors: Record<string, unknown> = {};
    for (const collector of this.collectors) {
      try {
        const section = collector.collect(context);
        if (section !== undefined) collectors[collector.name] = section;
      } catch (error) {
        // A broken collector costs its own section, never the report or the response.
        collectors[collector.name] = { collectorError: (error as Error).message };
      }
    }
    return {
      token: profile.token,
      time: profile.time,
      method: request.method,
      // Redacted and cut with the rest of the report when it is encoded.
      url: requestUrlWithQuery(request),
      status: profile.aborted ? CLIENT_CLOSED_REQUEST : reply.statusCode,
      ip: profile.ip,
      duration: Math.round((profile.marks.end! - profile.marks.start) * 1000) / 1000,
      collectors,
    };
  }
}
