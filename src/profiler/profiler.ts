/**
 * The profiler: gives each request a token, lets collectors fill its report, and hands
 * the report to the writer once the response is sent (Symfony's "terminate" stage).
 * Only composed in debug mode; the profiler's own pages are never profiled.
 */
import type { FastifyInstance } from 'fastify';
import { isProfilerPath, reportUrl } from '../debug/request-debug.js';
import { TokenIssuer } from '../debug/token.js';
import { requestOrigin, requestUrlWithQuery } from '../server/request-url.js';
import { exceptionCollector } from './collectors/exception.js';
import { requestCollector } from './collectors/request.js';
import { responseCollector } from './collectors/response.js';
import type { Report } from './report.js';
import { Redactor } from './redact.js';
import { ReportWriter } from './report-writer.js';
import type { Collector, CollectorContext } from './request-profile.js';
import type { ReportStore } from './storage/report-store.js';

export const DEFAULT_COLLECTORS: readonly Collector[] = [requestCollector, responseCollector, exceptionCollector];

export interface ProfilerOptions {
  store: ReportStore;
  redact?: readonly string[];
  collectors?: readonly Collector[];
}

export class Profiler {
  readonly collectors: Collector[];
  readonly redactor: Redactor;
  writer!: ReportWriter;
  private issuer!: TokenIssuer;

  constructor(readonly store: ReportStore, options: Omit<ProfilerOptions, 'store'> = {}) {
    this.collectors = [...(options.collectors ?? DEFAULT_COLLECTORS)];
    this.redactor = new Redactor(options.redact);
  }

  /** Adds a collector; its section appears in every report written after. */
  addCollector(collector: Collector): void {
    this.collectors.push(collector);
  }

  /** Loads the tokens in use and hooks the request stages of `app`. */
  async attach(app: FastifyInstance): Promise<void> {
    this.issuer = new TokenIssuer(await this.store.tokens());
    this.writer = new ReportWriter(this.store, { log: app.log, onDiscard: (tokens) => this.issuer.release(tokens) });
    app.decorateRequest('profile', null);

    app.addHook('onRequest', (request, reply, done) => {
      if (isProfilerPath(request.url)) return done();
      const token = this.issuer.issue();
      request.debugToken = token;
      request.profile = { token, time: Date.now(), error: undefined, data: {} };
      // Node caches the peer address on first read: read it while the socket is open, so a
      // report written after the client went away still has its IP (the store requires one).
      void request.raw.socket?.remoteAddress;
      reply.header('x-debug-token', token);
      reply.header('x-debug-token-link', reportUrl(requestOrigin(request), token));
      const context = this.contextFor(request, reply);
      for (const collector of this.collectors) collector.start?.(context);
      done();
    });

    app.addHook('onError', (request, _reply, error, done) => {
      if (request.profile) request.profile.error = error;
      done();
    });

    app.addHook('onResponse', (request, reply, done) => {
      if (request.profile) this.writer.enqueue(this.report(this.contextFor(request, reply), reply.elapsedTime));
      done();
    });
  }

  async close(): Promise<void> {
    await this.writer?.close();
    await this.store.close();
  }

  /** A stored or still queued report. */
  async read(token: string): Promise<Report | undefined> {
    return this.writer.pending(token) ?? (await this.store.read(token));
  }

  private contextFor(request: CollectorContext['request'], reply: CollectorContext['reply']): CollectorContext {
    return { request, reply, profile: request.profile!, redactor: this.redactor };
  }

  private report(context: CollectorContext, duration: number): Report {
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
      url: this.redactor.url(requestUrlWithQuery(request)),
      status: reply.statusCode,
      ip: request.ip,
      duration,
      collectors,
    };
  }
}
