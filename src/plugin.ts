/**
 * vigil as a Fastify plugin: registered on an application's own Fastify instance, before its routes,
 * it gives them the whole debug kernel (the error pipeline, the profiler, the 404/405/301 answers
 * decided from the routes the application adds, CORS, the Host checks and the body limits).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { describeMode, loadConfig, type Config } from './config/index.js';
import { CorsPolicy } from './cors/cors-policy.js';
import { installStackTraces } from './debug/stack-trace.js';
import { createErrorResponder } from './errors/error-handler.js';
import { traceClientErrors } from './errors/http-errors.js';
import { httpDate } from './http/http-date.js';
import { REQUEST_STATE, stateOf } from './http/request-state.js';
import { urlHost } from './http/request-url.js';
import { installRequestHooks } from './kernel-hooks.js';
import { Limits } from './limits/limits.js';
import { forwardedLoopbackWarning } from './profiler/access/access.js';
import { defaultCollectors } from './profiler/collectors/index.js';
import { tapConsole } from './profiler/activity/console-tap.js';
import { logTapOf } from './profiler/activity/log-tap.js';
import { Profiler, type ProfilerOptions } from './profiler/profiler.js';
import { declareProfilerRoutes } from './profiler/profiler-routes.js';
import { installToolbar } from './profiler/toolbar-hook.js';
import type { Collector } from './profiler/model/request-profile.js';
import type { ReportStore } from './profiler/storage/report-store.js';
import type { MovedAside } from './profiler/storage/sqlite/sqlite-check.js';
import { createReportStore } from './profiler/storage/store-factory.js';
import { registerRoutes, runsByBody } from './routing/register-routes.js';
import { explainValidation } from './routing/route-declaration.js';
import { routeOf, RouteTable } from './routing/route-table.js';
import { Routes, type RoutesDeclaration } from './routing/routes.js';
import { answerUnmatched } from './routing/unmatched-hook.js';
import { installAccessLog } from './server/access-log.js';
import { warnOfPublicDebug } from './server/debug-exposure.js';
import { isPretty } from './server/log-output.js';
import { handOffToKernel } from './server/node-handoffs.js';
import { TrustedHosts } from './guards/trusted-hosts.js';

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
}

/** What the plugin leaves on the instance, as `app.vigil`. */
export interface VigilKernel {
  readonly config: Config;
  /** Every route the application has, native or declared, as the 404/405/301 decisions see them. */
  readonly routes: RouteTable;
  /** Present in debug mode only. */
  readonly profiler: Profiler | undefined;
  /** Fastify's `frameworkErrors` (see `vigilFastifyOptions`): an error raised before routing, through the pipeline. */
  answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void;
  /** vigil's error handler: a root `setErrorHandler` of the application's hands it the errors it does not answer itself. */
  handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void;
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
  const earlier = routesListed(app.printRoutes({ commonPrefix: false }));
  // Debug mode's process-wide taps (stack frames, client-error traces, console lines in reports),
  // held while this instance is open; production installs none.
  const releases = config.debug ? [installStackTraces(), traceClientErrors(), tapConsole()] : [];
  const release = () => {
    for (const release of releases) release();
  };
  let profiler: Profiler | undefined;
  // Debug output goes only to the clients that may open the profiler.
  const debugFor = (request: FastifyRequest) => profiler?.admits(request) ?? false;
  const respondWithError = createErrorResponder({
    debug: config.debug,
    editor: config.ide,
    debugFor,
    defaultFormat: options.errorFormat ?? 'json',
    jsonShape: options.errorShape ?? 'problem',
  });
  let handleError: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void = respondWithError;
  const serverHost = urlHost(config.host);
  const table = new RouteTable();
  const declared = new Routes();
  app.decorateRequest(REQUEST_STATE, null);
  app.decorate('vigil', {
    config,
    routes: table,
    get profiler() {
      return profiler;
    },
    answerFrameworkError(error, request, reply) {
      // No hook has run for these requests: the state, the date and the token are given here.
      stateOf(request, serverHost);
      reply.header('date', httpDate());
      profiler?.adopt(request, reply, error);
      respondWithError(error, request, reply);
    },
    handleError(error, request, reply) {
      handleError(error, request, reply);
    },
  } satisfies VigilKernel);
  handOffToKernel(app.server);

  if (config.debug) {
    // The taps go with this instance: the last debug instance's close gives the globals back.
    app.addHook('onClose', async () => release());
    // A damaged store file is kept aside for a look, and the service starts with a new one.
    const onDamaged = ({ file, movedTo, reason }: MovedAside) =>
      app.log.warn(
        { movedTo },
        `The report store ${file} was damaged (${reason}): moved to ${movedTo} (with its -wal and -shm, if any); a new store was created`,
      );
    // A full disk, a file deleted under the service, or search indexes being built, is said here; the service goes on.
    const notify = (message: string) => app.log.warn(message);
    profiler = new Profiler(options.reportStore ?? createReportStore(config.profilerStore, { onDamaged, notify }), {
      collectors: [
        ...defaultCollectors({
          matcher: () => table.matcher,
          logTap: logTapOf(app.log),
          editor: config.ide,
          appActivity: config.profilerCaptureApp ? { slowQueryMs: config.profilerSlowQueryMs } : undefined,
        }),
        ...(options.collectors ?? []),
      ],
      redact: config.profilerRedact,
      allow: config.profilerAllow,
      access: { trustedProxies: config.trustedProxies, host: config.host, trustedHosts: config.trustedHosts },
      retention: { maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs },
      ...(options.profilerWriter ? { writer: options.profilerWriter } : {}),
      ...(options.peerCounters ? { peers: options.peerCounters } : {}),
    });
    await profiler.attach(app);
    declareProfilerRoutes(declared, profiler);
    app.addHook('onClose', () => profiler!.close());
    if (config.profilerToolbar) installToolbar(app, profiler.collectors, debugFor);
    warnOfPublicDebug(app);
  }
  if (options.accessLog ?? isPretty(app.log)) installAccessLog(app);
  let limits: Limits | undefined;
  try {
    for (const declare of options.routes ?? []) await declare(declared);
    limits = await Limits.create({
      settings: config,
      definitions: declared.definitions,
      routesModule: options.routesModule,
      log: app.log,
    });
    const routeLimits = limits;
    app.addHook('onClose', () => routeLimits.close());

    // Every route added from here on, by the application or below, is known and limited.
    app.addHook('onRoute', table.collect);
    app.addHook('onRoute', routeLimits.adoptRoute);
    const ownHandler = (handleError = (error, request, reply) => {
      const explained = routeLimits.explain(explainValidation(error, routeOf(request)?.declaredAt), request, reply);
      // The report describes the error as the pipeline renders it.
      const profile = request.vigil?.profile;
      if (profile && explained instanceof Error) profile.error = explained;
      respondWithError(explained, request, reply);
    });
    app.setErrorHandler(ownHandler);
    // A root handler set after this one replaces the pipeline: noted, for a warning at start.
    let replaced = false;
    const setErrorHandler = app.setErrorHandler;
    app.setErrorHandler = function (this: FastifyInstance, handler) {
      if (this === app) replaced = true;
      return setErrorHandler.call(this, handler as Parameters<typeof setErrorHandler>[0]);
    } as FastifyInstance['setErrorHandler'];
    installRequestHooks(app, {
      serverHost,
      trustedHosts: new TrustedHosts(config.trustedHosts),
      cors: new CorsPolicy(config.cors),
      corsEnabled: options.cors === true,
      profiler,
      watchForwarded:
        profiler && config.trustedProxies.length === 0
          ? forwardedLoopbackWarning((message) => app.log.warn(message))
          : undefined,
      routes: table,
      limits: routeLimits.requestHooks,
      respond(error, request, reply) {
        // What the onError hook would note, for an error that skips Fastify's error handling.
        if (error instanceof Error) profiler?.noteError(request, error);
        respondWithError(error, request, reply);
      },
    });
    app.setNotFoundHandler(answerUnmatched(table, config.debug));
    routeLimits.installParsers(app);
    // Routes API routes have their own scopes, one per run in declaration order (the order of
    // Allow): uploads' hooks run only for routes that can have a body, never for the application's.
    for (const run of runsByBody(declared.definitions)) {
      await app.register(async (scope) => {
        if (run.body) await routeLimits.installUploads(scope);
        registerRoutes(scope, run.definitions, routeLimits.execute);
      });
    }
    const store = options.reportStore
      ? 'the reportStore given'
      : config.profilerStore.scheme === 'sqlite'
        ? config.profilerStore.file
        : config.profilerStore.location;
    warnAtStart(app, {
      earlier,
      replaced: () => replaced,
      announce:
        options.announceProfiler === false ? undefined : { mode: describeMode(config), store: profiler && store },
    });
  } catch (error) {
    // A kernel that cannot start leaves no worker process or open store behind.
    await Promise.allSettled([limits?.close(), profiler?.close()]);
    release();
    throw error;
  }
}

/**
 * What the start says: the mode and why, where the profiler is and where it keeps its
 * reports, and the silent traps, as warnings naming vigil: routes added before it, a root
 * error handler set after it.
 */
function warnAtStart(
  app: FastifyInstance,
  {
    earlier,
    replaced,
    announce,
  }: {
    earlier: readonly string[];
    replaced: () => boolean;
    /** `store`: where reports go, in debug mode only. */
    announce: { mode: string; store: string | undefined } | undefined;
  },
): void {
  app.addHook('onReady', (done) => {
    if (earlier.length > 0) {
      app.log.warn(
        `routes added before vigil was registered: ${earlier.join(', ')}; vigil does not know them (a wrong method on them is a 404, not a 405): register vigil first`,
      );
    }
    if (replaced()) {
      app.log.warn(
        "a root setErrorHandler replaced vigil's error handler: errors no longer get vigil's pages, debug headers and reports; set the handler in a scope, or pass the errors it does not answer to app.vigil.handleError(error, request, reply)",
      );
    }
    done();
  });
  if (!announce) return;
  app.addHook('onListen', (done) => {
    const address = app.server.address();
    const scheme = app.initialConfig.https ? 'https' : 'http';
    const where =
      typeof address === 'object' && address !== null
        ? `${scheme}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
        : String(address);
    const { mode, store } = announce;
    app.log.info(
      store === undefined
        ? `vigil: ${mode}; no profiler`
        : `vigil: ${mode}; the profiler at ${where}/_profiler (loopback and PROFILER_ALLOW), reports stored in ${store}`,
    );
    done();
  });
}

/** The routes of Fastify's printed tree (`/early (GET, HEAD)`), as `GET /early`; none for its `(empty tree)`. */
function routesListed(tree: string): string[] {
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^[\s│├└─]*(\S.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const methods = match[2]!.split(', ').filter((method) => method !== 'HEAD');
    routes.push(`${(methods.length > 0 ? methods : ['HEAD']).join('|')} ${match[1]}`);
  }
  return routes;
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
