import { performance } from "node:perf_hooks";
import { isProfilerPath, reportUrl } from "../debug/request-debug.js";
import { TokenSource } from "../debug/token.js";
import { requestOrigin, requestTarget, requestUrlWithQuery } from "../server/request-url.js";
import { PAGE_SECURITY_HEADERS, ProfilerAccess } from "./access.js";
import { PacedFailureLog } from "./failure-pacing.js";
import { Redactor } from "./redact.js";
import { ReportWriter } from "./report-writer.js";
const CLIENT_CLOSED_REQUEST = 499;
const TOKEN_LEASE_FAILED = "token lease failed";
class Profiler {
  constructor(store, options) {
    this.store = store;
    this.options = options;
    this.collectors = [...options.collectors];
    this.redactor = new Redactor(options.redact);
    this.access = new ProfilerAccess(options.allow);
  }
  store;
  options;
  collectors;
  redactor;
  access;
  writer;
  tokens;
  leaseFailures;
  /** The onRequestAbort hook gets no reply; each profile's is kept here until its report is made. */
  replies = /* @__PURE__ */ new WeakMap();
  log;
  get retention() {
    return this.options.retention;
  }
  /** Adds a collector; its section appears in every report written after. */
  addCollector(collector) {
    this.collectors.push(collector);
  }
  /**
   * Opens the store, applies the retention, leases the first tokens and hooks the request
   * stages of `app`. A store that cannot lease now (a full disk) does not stop the start:
   * requests go without a report, counted as dropped, until it can.
   */
  async attach(app) {
    this.log = app.log;
    await this.store.open();
    this.writer = new ReportWriter(this.store, {
      ...this.options.writer,
      retention: this.options.retention,
      log: app.log,
      redactor: this.redactor
    });
    const failures = new PacedFailureLog(app.log);
    this.leaseFailures = failures;
    this.tokens = new TokenSource((count) => this.store.leaseTokens(count), {
      onLeaseFailed: (error) => failures.failed(TOKEN_LEASE_FAILED, describeFailure(error)),
      onLeaseRecovered: () => failures.succeeded(TOKEN_LEASE_FAILED)
    });
    await this.writer.open();
    await this.tokens.fill();
    app.decorateRequest("profile", null);
    app.addHook("onRequest", (request, reply, done) => {
      if (this.serves(request)) {
        reply.headers(PAGE_SECURITY_HEADERS);
        return done();
      }
      const token = this.tokens.issue();
      if (token !== void 0) {
        this.begin(request, reply, token);
        return done();
      }
      this.tokens.take().then(
        (late) => {
          if (late !== void 0) this.begin(request, reply, late);
          else this.writer.discard(1, "no token could be leased from the store");
          done();
        }
      ).catch((error) => done(error));
    });
    app.addHook("preParsing", (request, _reply, payload, done) => {
      if (request.profile) request.profile.marks.parsing = performance.now();
      done(null, payload);
    });
    app.addHook("preHandler", (request, _reply, done) => {
      if (request.profile) request.profile.marks.handler = performance.now();
      done();
    });
    app.addHook("onError", (request, _reply, error, done) => {
      if (request.profile) {
        request.profile.error = error;
        request.profile.marks.error = performance.now();
      }
      done();
    });
    app.addHook("onSend", (request, _reply, payload, done) => {
      if (request.profile) request.profile.marks.send ??= performance.now();
      done(null, payload);
    });
    app.addHook("onResponse", (request, _reply, done) => {
      this.finish(request);
      done();
    });
    app.addHook("onRequestAbort", (request, done) => {
      if (request.profile) request.profile.aborted = true;
      this.finish(request);
      done();
    });
  }
  /**
   * Profiles a request Fastify refused before routing (a malformed URL), for which no hook
   * runs: its token is issued here, and its report is written once its answer is.
   */
  adopt(request, reply, error) {
    if (request.profile) return;
    const token = this.tokens.issue();
    if (token === void 0) return void this.writer.discard(1, "no token could be leased from the store");
    const profile = this.begin(request, reply, token);
    profile.error = error;
    profile.marks.error = performance.now();
    reply.raw.once("close", () => {
      profile.aborted = !reply.raw.writableFinished;
      this.finish(request);
    });
  }
  /**
   * True for a request to a profiler page from a client the profiler does not admit: the
   * kernel answers it as if no route existed. It was profiled like any other request.
   */
  refuses(request) {
    return this.isProfilerRequest(request) && !this.access.allows(request.ip);
  }
  /** True for a request to a profiler page from a client the profiler admits (it carries no profile). */
  serves(request) {
    return this.isProfilerRequest(request) && this.access.allows(request.ip);
  }
  async close() {
    if (this.writer) {
      await this.writer.close();
      const { written, dropped } = this.writer;
      this.log?.[dropped > 0 ? "warn" : "info"](`Debug reports: ${written} written, ${dropped} dropped`);
    }
    this.leaseFailures?.flush();
    for (const collector of this.collectors) collector.close?.();
    await this.store.close();
  }
  /** A stored or still queued report. */
  async read(token) {
    return this.writer.pending(token) ?? await this.store.read(token);
  }
  async stats() {
    return { stored: await this.store.count(), queued: this.writer.queued, dropped: this.writer.dropped, purged: this.writer.purged, retention: this.options.retention };
  }
  /**
   * The profiler's routes, or (unrouted) a path under /_profiler, percent-encoded or not,
   * in any target form (`POST https://host/_profiler` is unrouted for POST, and its path is
   * the profiler's).
   */
  isProfilerRequest(request) {
    if (!request.is404) return isProfilerPath(request.routeOptions.config.routePath ?? "");
    const url = request.url;
    const target = url.charCodeAt(0) === 47 ? url : requestTarget(request).path;
    return isProfilerPath(target) || target.includes("%") && isProfilerPath(safeDecodeUri(target));
  }
  /** Gives the request its token and profile, announces the token and starts the collectors. */
  begin(request, reply, token) {
    const profile = { token, time: Date.now(), ip: request.ip ?? "", marks: { start: performance.now() }, error: void 0, aborted: false, data: {} };
    request.debugToken = token;
    request.profile = profile;
    reply.header("x-debug-token", token);
    reply.header("x-debug-token-link", reportUrl(requestOrigin(request), token));
    this.replies.set(profile, reply);
    const context = this.contextFor(request, reply, profile);
    for (const collector of this.collectors) collector.start?.(context);
    return profile;
  }
  contextFor(request, reply, profile) {
    return { request, reply, profile, redactor: this.redactor };
  }
  /** Collects and queues the report, once: the profile is detached from the request first. */
  finish(request) {
    const profile = request.profile;
    const reply = profile && this.replies.get(profile);
    if (!profile || !reply) return;
    request.profile = null;
    this.replies.delete(profile);
    profile.marks.end = performance.now();
    this.writer.enqueue(this.report(this.contextFor(request, reply, profile)));
  }
  report(context) {
    const { request, reply, profile } = context;
    const collectors = {};
    for (const collector of this.collectors) {
      try {
        const section = collector.collect(context);
        if (section !== void 0) collectors[collector.name] = section;
      } catch (error) {
        collectors[collector.name] = { collectorError: error.message };
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
      duration: Math.round((profile.marks.end - profile.marks.start) * 1e3) / 1e3,
      collectors
    };
  }
}
function describeFailure(error) {
  const code = error.code;
  return typeof code === "string" ? `${code}: ${error.message}` : error.message;
}
function safeDecodeUri(url) {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
export {
  CLIENT_CLOSED_REQUEST,
  Profiler
};
//# sourceMappingURL=profiler.js.map
