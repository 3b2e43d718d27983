/**
 * vigil as a Fastify plugin: registered on an application's own Fastify instance, before its routes,
 * it gives them the whole debug kernel (the error pipeline, the profiler, the 404/405/301 answers
 * decided from the routes the application adds, CORS, the Host checks and the body limits).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { loadConfig, profilerRuns, type Config } from './config/index.js';
import { CorsPolicy } from './cors/cors-policy.js';
import { installStackTraces } from './debug/stack-trace.js';
import { createErrorResponder, type ErrorResponder } from './errors/error-handler.js';
import { traceClientErrors } from './errors/http-errors.js';
import { setRootErrorHandler } from './errors/root-error-handler.js';
import { httpDate } from './http/http-date.js';
import { REQUEST_STATE, stateOf } from './http/request-state.js';
import { urlHost } from './http/request-url.js';
import { installBodyScopeHooks, installKernelHooks, kernelHooks, type KernelHooks } from './kernel-hooks.js';
import { Limits } from './limits/limits.js';
import { forwardedLoopbackWarning, ProfilerAccess } from './profiler/access/access.js';
import { ProductionAccess, type ProfilerAccessCheck } from './profiler/access/production-access.js';
import { defaultCollectors } from './profiler/collectors/index.js';
import { tapConsole } from './profiler/activity/console-tap.js';
import { logTapOf } from './profiler/activity/log-tap.js';
import { Profiler, type ProfilerOptions } from './profiler/profiler.js';
import { REDACTED, type Redactor } from './profiler/redaction/redact.js';
import type { SentValues } from './errors/schema-violations.js';
import { declareProfilerRoutes } from './profiler/profiler-routes.js';
import type { Collector } from './profiler/model/request-profile.js';
import type { ReportStore } from './profiler/storage/report-store.js';
import type { MovedAside } from './profiler/storage/sqlite/sqlite-check.js';
import { createReportStore, missingStoreDriver } from './profiler/storage/store-factory.js';
import { routesAddedBefore } from './routing/earlier-routes.js';
import { registerRoutes, runsByBody } from './routing/register-routes.js';
import { explainValidation } from './routing/route-declaration.js';
import { routeOf, RouteTable } from './routing/route-table.js';
import { Routes, type RouteDefinition, type RoutesDeclaration } from './routing/routes.js';
import { setRootNotFoundHandler } from './routing/not-found-handler.js';
import { answerUnmatched } from './routing/unmatched-hook.js';
import { isPretty } from './server/log-output.js';
import { handOffToKernel } from './server/node-handoffs.js';
import { announcementOf } from './server/profiler-announcement.js';
import { TrustedHosts } from './guards/trusted-hosts.js';
import { testReport, type ReportTarget, type TestReport } from './profiler/test-report.js';

export interface VigilOptions {
  /** The settings; read from the environment and `.env` (`loadConfig()`) when absent. */
  config?: Config;
  /**
   * Routes declared with the routes API (`defineRoutes`), registered beside the
   * application's own, under the same limits, with uploads and the execution-time signal.
   */
  routes?: readonly RoutesDeclaration[];
  /** The module `routes` came from: the worker processes of isolated routes import it. */
  routesModule?: string | undefined;
  /** Where reports go in debug mode, unopened (the profiler opens it); defaults to the store PROFILER_DSN names. */
  reportStore?: ReportStore;
  /** Collectors added to the profiler's defaults; each adds a panel to every report. */
  collectors?: readonly Collector[];
  /** Tuning of the profiler's batched writer: queue bound, batch size, flush delay. */
  profilerWriter?: ProfilerOptions['writer'];
  /** Logs an access line per request (method, URL, status, time, report link); default: when the log output is pretty (a terminal, debug mode). */
  accessLog?: boolean;
  /** vigil's own CORS policy (the CORS_* settings); default off: the application's `@fastify/cors`, if any, decides. */
  cors?: boolean;
  /** The error format of a client that names none (`Accept: *\/*`, or none): `json` (the default) or `html`. */
  errorFormat?: 'html' | 'json';
  /** Production JSON errors as problem+json (`problem`, the default) or in Fastify's shape, `{statusCode, error, message}` (`fastify`). */
  errorShape?: 'problem' | 'fastify';
  /** Logs the mode and why, and where the profiler is and where it stores reports (debug mode), once the application listens; default true. */
  announceProfiler?: boolean;
  /** The report counters of the processes serving beside this one (WORKERS above 1), for the profiler's pages. */
  peerCounters?: ProfilerOptions['peers'];
  /**
   * Production: opens the profiler's pages to the requests it returns true for (the
   * application's own authentication), instead of PROFILER_SECRET; debug mode ignores it.
   */
  profilerAccess?: ProfilerAccessCheck;
}

/** What the plugin leaves on the instance, as `app.vigil`. */
export interface VigilKernel {
  readonly config: Config;
  /** Every route the application has, native or declared, as the 404/405/301 decisions see them. */
  readonly routes: RouteTable;
  /** Present in debug mode, and in production when PROFILER_KEEP or PROFILER_SAMPLE asks for reports. */
  readonly profiler: Profiler | undefined;
  /** Fastify's `frameworkErrors` (see `vigilFastifyOptions`): an error raised before routing, through the pipeline. */
  answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void;
  /** vigil's error handler: a root `setErrorHandler` of the application's hands it the errors it does not answer itself. */
  handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void;
  /**
   * The report of a request, for the application's tests: an `inject()` or `fetch` response,
   * or a token; undefined in production or without a report (docs/testing.md).
   */
  report(target: ReportTarget): Promise<TestReport | undefined>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** vigil's parts, once the plugin is registered. */
    vigil: VigilKernel;
  }
}

/** Fastify's own `bodyLimit` default: the plugin's parsed-body limit when PARSED_BODY_MAX_SIZE is not set. */
const FASTIFY_BODY_LIMIT = { bytes: 1024 * 1024, text: '1M' };

async function vigilPlugin(app: FastifyInstance, options: VigilOptions): Promise<void> {
  const given = options.config ?? loadConfig();
  const config = { ...given, parsedBodyMaxSize: given.parsedBodyMaxSize ?? FASTIFY_BODY_LIMIT };
  // The routes added before vigil: it cannot know them (their wrong method is a 404).
  const earlierRoutes = routesAddedBefore(app);
  // The profiler's process-wide taps (stack frames, client-error traces, console lines in reports),
  // held while this instance is open; production installs them only when it keeps reports.
  const releases = profilerTaps(config);
  const release = () => {
    for (const release of releases) release();
  };
  const kernel = decorateKernel(app, config, options);
  handOffToKernel(app.server);
  const declared = new Routes();
  let limits: Limits | undefined;
  let productionPages: Profiler | undefined;
  try {
    // Production's pages, when PROFILER_SECRET or `profilerAccess` opens them: on the profiler
    // that keeps reports, or on one of their own that profiles nothing.
    const production = productionAccessOf(app, config, options);
    const profiler = profilerRuns(config)
      ? await createProfiler(app, config, options, kernel.routes, production)
      : undefined;
    kernel.profiler = profiler;
    productionPages =
      production && (profiler ?? (await createProfiler(app, config, options, kernel.routes, production)));
    const pages = config.debug ? profiler : productionPages;
    if (pages) declareProfilerRoutes(declared, pages);
    for (const declare of options.routes ?? []) await declare(declared);
    limits = await Limits.create({
      settings: config,
      definitions: declared.definitions,
      routesModule: options.routesModule,
      log: app.log,
    });
    kernel.handleError = pipelineErrorHandler(limits, kernel.respond, () => kernel.profiler?.redactor);
    // A root handler set after this one replaces the pipeline: noted, for a warning at start.
    const rootErrorHandler = setRootErrorHandler(app, kernel.handleError);
    const hooks = kernelHooks(app, {
      serverHost: kernel.serverHost,
      trustedHosts: new TrustedHosts(config.trustedHosts),
      cors: new CorsPolicy(config.cors),
      corsEnabled: options.cors === true,
      profiler,
      debug: config.debug,
      productionPages,
      watchForwarded: config.debug && profiler ? forwardedWatch(app, config) : undefined,
      routes: kernel.routes,
      limits,
      respond: kernel.respond,
      toolbar: config.profilerToolbar,
      accessLog: options.accessLog ?? isPretty(app.log),
      earlierRoutes,
      rootErrorHandler,
      announce:
        options.announceProfiler === false
          ? undefined
          : announcementOf(
              config,
              config.debug && !!profiler,
              options.reportStore,
              productionPages && openerOf(options),
            ),
      // The taps go with this instance: the last profiled instance's close gives the globals back.
      releaseTaps: releases.length > 0 ? release : undefined,
    });
    installKernelHooks(app, hooks);
    // An application's own root handler (NestJS's) takes its place, for `reply.callNotFound()`.
    setRootNotFoundHandler(app, answerUnmatched(kernel.routes, config.debug));
    limits.installParsers(app);
    await registerDeclaredRoutes(app, declared.definitions, limits, hooks);
  } catch (error) {
    // A kernel that cannot start leaves no worker process or open store behind.
    await Promise.allSettled([limits?.close(), kernel.profiler?.close(), productionPages?.close()]);
    release();
    throw error;
  }
}

/** `app.vigil`, and what it comes to hold once made: the profiler, then the limits' error handler. */
interface KernelParts {
  /** HOST as a URL writes it. */
  readonly serverHost: string;
  readonly routes: RouteTable;
  /** The error pipeline. */
  readonly respond: ErrorResponder;
  profiler: Profiler | undefined;
  /** The pipeline behind the limits' and the routes API's explanations, once they exist. */
  handleError: ErrorResponder;
}

function decorateKernel(app: FastifyInstance, config: Config, options: VigilOptions): KernelParts {
  const parts: KernelParts = {
    serverHost: urlHost(config.host),
    routes: new RouteTable(),
    profiler: undefined,
    respond: createErrorResponder({
      debug: config.debug,
      editor: config.ide,
      // Debug output goes only to the clients that may open the profiler.
      debugFor: (request) => parts.profiler?.admits(request) ?? false,
      reportToken: (request) => parts.profiler?.reportToken(request),
      defaultFormat: options.errorFormat ?? 'json',
      jsonShape: options.errorShape ?? 'problem',
    }),
    handleError: (error, request, reply) => parts.respond(error, request, reply),
  };
  app.decorateRequest(REQUEST_STATE, null);
  app.decorate('vigil', {
    config,
    routes: parts.routes,
    get profiler() {
      return parts.profiler;
    },
    answerFrameworkError(error, request, reply) {
      // No hook has run for these requests: the state, the date and the token are given here.
      stateOf(request, parts.serverHost);
      reply.header('date', httpDate());
      parts.profiler?.adopt(request, reply, error);
      parts.respond(error, request, reply);
    },
    handleError(error, request, reply) {
      parts.handleError(error, request, reply);
    },
    report: (target) => testReport(parts.profiler, target),
  } satisfies VigilKernel);
  return parts;
}

/**
 * Production: who may open the profiler's pages, when PROFILER_SECRET or `profilerAccess`
 * says; without either, none (the command line reads the store).
 */
function productionAccessOf(app: FastifyInstance, config: Config, options: VigilOptions): ProductionAccess | undefined {
  if (config.debug || (config.profilerSecret === undefined && options.profilerAccess === undefined)) return undefined;
  // The client whose failures are counted: the socket's peer, walked back through TRUSTED_PROXIES only.
  const clients = new ProfilerAccess([], { trustedProxies: config.trustedProxies });
  return new ProductionAccess({
    secret: config.profilerSecret,
    sessionMaxAgeMs: config.profilerSessionMaxAgeMs,
    check: options.profilerAccess,
    clientOf: (request) => clients.clientOf(request),
    warn: (message) => app.log.warn(message),
  });
}

/** What opens production's pages, for the start line. */
function openerOf(options: VigilOptions): string {
  return options.profilerAccess
    ? "whom the application's profilerAccess admits"
    : 'a bearer of PROFILER_SECRET or its login page';
}

/**
 * The taps the profiler needs, wherever it runs: stack frames and console lines, and the
 * traces of 4xx errors when their reports may be kept (debug mode, PROFILER_KEEP=all, a sample).
 */
function profilerTaps(config: Config): Array<() => void> {
  if (!profilerRuns(config)) return [];
  const clientErrors = config.profilerKeep.includes('all') || config.profilerSample > 0;
  return [installStackTraces(), tapConsole(), ...(clientErrors ? [traceClientErrors()] : [])];
}

/**
 * The profiler of debug mode, of production's kept reports, or of production's pages alone: the
 * default collectors and the application's, on the store given or the one PROFILER_DSN names.
 */
function createProfiler(
  app: FastifyInstance,
  config: Config,
  options: VigilOptions,
  table: RouteTable,
  production?: ProductionAccess,
): Promise<Profiler | undefined> {
  // The default store needs a driver Node 20 lacks: the application still starts, and says why there are no reports.
  const missing = options.reportStore ? undefined : missingStoreDriver(config.profilerStore);
  if (missing !== undefined) {
    app.log.warn(`vigil: the profiler is off: ${missing}; or run Node 22 or later, whose node:sqlite it uses`);
    return Promise.resolve(undefined);
  }
  // A damaged store file is kept aside for a look, and the service starts with a new one.
  const onDamaged = ({ file, movedTo, reason }: MovedAside) =>
    app.log.warn(
      { movedTo },
      `The report store ${file} was damaged (${reason}): moved to ${movedTo} (with its -wal and -shm, if any); a new store was created`,
    );
  // A full disk, a file deleted under the service, or search indexes being built, is said here; the service goes on.
  const notify = (message: string) => app.log.warn(message);
  const store = options.reportStore ?? createReportStore(config.profilerStore, { onDamaged, notify });
  const collectors = defaultCollectors({
    matcher: () => table.matcher,
    logTap: logTapOf(app.log),
    editor: config.ide,
    appActivity: config.profilerCaptureApp ? { slowQueryMs: config.profilerSlowQueryMs } : undefined,
    production: !config.debug,
  });
  const settings: ProfilerOptions = {
    collectors: [...collectors, ...(options.collectors ?? [])],
    redact: config.profilerRedact,
    allow: config.profilerAllow,
    access: { trustedProxies: config.trustedProxies, host: config.host, trustedHosts: config.trustedHosts },
    retention: { maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs },
    overview: { retentionMs: config.profilerOverviewRetentionMs },
    http2: app.initialConfig.http2 === true,
    ...(options.profilerWriter ? { writer: options.profilerWriter } : {}),
    ...(options.peerCounters ? { peers: options.peerCounters } : {}),
    ...(production ? { production } : {}),
    keep: config.debug
      ? undefined
      : {
          outcomes: config.profilerKeep,
          sample: config.profilerSample,
          slowMs: config.profilerSlowRequestMs,
          maxPerSecond: config.profilerKeepMaxPerSecond,
        },
  };
  return Profiler.create(store, settings, app.log);
}

/** Without TRUSTED_PROXIES, a proxy on loopback is warned of: every client would seem local to the profiler. */
function forwardedWatch(app: FastifyInstance, config: Config): ((request: FastifyRequest) => void) | undefined {
  return config.trustedProxies.length === 0 ? forwardedLoopbackWarning((message) => app.log.warn(message)) : undefined;
}

/**
 * vigil's error handler: the limits' and the declaration's explanations, then the pipeline.
 * `redactor`: the profiler's, which redacts the values a schema 400 shows as the report does.
 */
function pipelineErrorHandler(
  limits: Limits,
  respond: ErrorResponder,
  redactor: () => Redactor | undefined,
): ErrorResponder {
  return (error, request, reply) => {
    const sent = sentValues(request, redactor());
    const explained = limits.explain(explainValidation(error, routeOf(request)?.declaredAt, sent), request, reply);
    // The report describes the error as the pipeline renders it.
    const profile = request.vigil?.profile;
    if (profile && explained instanceof Error) profile.error = explained;
    respond(explained, request, reply);
  };
}

/** What a request sent, by the part a schema validates, redacted as the report redacts it; none without a profiler (no debug output). */
function sentValues(request: FastifyRequest, redactor: Redactor | undefined): SentValues | undefined {
  if (redactor === undefined) return undefined;
  return {
    part: (context) =>
      context === 'body'
        ? request.body
        : context === 'querystring'
          ? request.query
          : context === 'params'
            ? request.params
            : context === 'headers'
              ? request.headers
              : undefined,
    redact: (names, shown) => (names.some((name) => redactor.isSecret(name, true)) ? REDACTED : redactor.text(shown)),
  };
}

/**
 * Routes API routes have their own scopes, one per run in declaration order (the order of
 * Allow): uploads' hooks run only for routes that can have a body, never for the application's.
 */
async function registerDeclaredRoutes(
  app: FastifyInstance,
  definitions: readonly RouteDefinition[],
  limits: Limits,
  hooks: KernelHooks,
): Promise<void> {
  for (const run of runsByBody(definitions)) {
    await app.register(async (scope) => {
      if (run.body) {
        await limits.prepareUploads(scope);
        installBodyScopeHooks(scope, hooks);
      }
      registerRoutes(scope, run.definitions, limits.execute);
    });
  }
}

/**
 * The plugin: `await app.register(vigil, { config })`, before the application's routes, which it learns
 * through `onRoute` (schemas included). `fastify-plugin` lets its hooks, handlers and decorations reach
 * the whole application.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { loadConfig, vigil, vigilFastifyOptions } from 'fastify-vigil';
 *
 * const config = loadConfig();
 * const app = Fastify(vigilFastifyOptions(config));
 * await app.register(vigil, { config });
 * app.get('/hello', async () => ({ hello: 'world' }));
 * await app.listen({ port: 3000 });
 * ```
 */
export const vigil: FastifyPluginAsync<VigilOptions> = fastifyPlugin(vigilPlugin, { fastify: '5.x', name: 'vigil' });
