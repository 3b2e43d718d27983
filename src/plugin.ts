/**
 * vigil as a Fastify plugin: registered on an application's own Fastify instance, before
 * its routes, it gives them the whole debug kernel. Errors go through the one pipeline
 * (negotiated, with the debug headers); every request gets a token and a stored report
 * browsable at `/_profiler`; a path without a route is a 404, a path with another method a
 * 405 with `Allow`, a missing or extra trailing slash a 301, all decided from the routes the
 * application adds (`onRoute`, schemas included); the CORS policy, the Host checks and the
 * body limits apply. `fastify-plugin` lets its hooks, handlers and decorations reach the
 * whole application.
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
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { loadConfig, type Config } from './config.js';
import { CorsPolicy } from './cors/cors-policy.js';
import { installStackTraces } from './debug/stack-trace.js';
import { createErrorResponder } from './errors/error-handler.js';
import { traceClientErrors } from './errors/http-errors.js';
import { httpDate } from './http/http-date.js';
import { REQUEST_STATE, stateOf } from './http/request-state.js';
import { urlHost } from './http/request-url.js';
import { installRequestHooks } from './kernel-hooks.js';
import { Limits } from './limits/limits.js';
import { defaultCollectors } from './profiler/collectors/index.js';
import { tapConsole } from './profiler/console-tap.js';
import { logTapOf } from './profiler/log-tap.js';
import { Profiler, type ProfilerOptions } from './profiler/profiler.js';
import { declareProfilerRoutes } from './profiler/profiler-routes.js';
import { installToolbar } from './profiler/toolbar-hook.js';
import type { Collector } from './profiler/request-profile.js';
import type { ReportStore } from './profiler/storage/report-store.js';
import type { MovedAside } from './profiler/storage/sqlite-check.js';
import { createReportStore } from './profiler/storage/store-factory.js';
import { registerRoutes } from './routing/register-routes.js';
import { explainValidation } from './routing/route-declaration.js';
import { routeOf, RouteTable } from './routing/route-table.js';
import { Routes, type RoutesDeclaration } from './routing/routes.js';
import { answerUnmatched } from './routing/unmatched-hook.js';
import { installAccessLog } from './server/access-log.js';
import { handOffToKernel } from './server/node-handoffs.js';
import { TrustedHosts } from './server/trusted-hosts.js';

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
  /** Logs an access line per request (method, URL, status, time, report link): for a terminal. */
  accessLog?: boolean;
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
}

declare module 'fastify' {
  interface FastifyInstance {
    /** vigil's parts, once the plugin is registered. */
    vigil: VigilKernel;
  }
}

async function vigilPlugin(app: FastifyInstance, options: VigilOptions): Promise<void> {
  const config = options.config ?? loadConfig();
  // Debug mode's process-wide taps (stack frames, client-error traces, console lines in reports),
  // held while this instance is open; production installs none.
  const releases = config.debug ? [installStackTraces(), traceClientErrors(), tapConsole()] : [];
  const release = () => {
    for (const release of releases) release();
  };
  const respondWithError = createErrorResponder({ debug: config.debug, editor: config.ide });
  const serverHost = urlHost(config.host);
  const table = new RouteTable();
  const declared = new Routes();
  let profiler: Profiler | undefined;
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
  } satisfies VigilKernel);
  handOffToKernel(app.server);

  if (config.debug) {
    // The taps go with this instance: the last debug instance's close gives the globals back.
    app.addHook('onClose', async () => release());
    // A damaged store file is kept aside for a look, and the service starts with a new one.
    const onDamaged = ({ file, movedTo, reason }: MovedAside) =>
      app.log.warn({ movedTo }, `The report store ${file} was damaged (${reason}): moved to ${movedTo} (with its -wal and -shm, if any); a new store was created`);
    profiler = new Profiler(options.reportStore ?? createReportStore(config.profilerStore, { onDamaged }), {
      collectors: [...defaultCollectors({ matcher: () => table.matcher, logTap: logTapOf(app.log), editor: config.ide }), ...(options.collectors ?? [])],
      redact: config.profilerRedact,
      allow: config.profilerAllow,
      retention: { maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs },
      ...(options.profilerWriter ? { writer: options.profilerWriter } : {}),
      ...(options.peerCounters ? { peers: options.peerCounters } : {}),
    });
    await profiler.attach(app);
    declareProfilerRoutes(declared, profiler);
    app.addHook('onClose', () => profiler!.close());
    if (config.profilerToolbar) installToolbar(app, logTapOf(app.log));
  }
  if (options.accessLog) installAccessLog(app);
  let limits: Limits | undefined;
  try {
    for (const declare of options.routes ?? []) await declare(declared);
    limits = await Limits.create({ settings: config, definitions: declared.definitions, routesModule: options.routesModule, log: app.log });
    const routeLimits = limits;
    app.addHook('onClose', () => routeLimits.close());

    // Every route added from here on, by the application or below, is known and limited.
    app.addHook('onRoute', table.collect);
    app.addHook('onRoute', routeLimits.adoptRoute);
    app.setErrorHandler((error, request, reply) => {
      const explained = routeLimits.explain(explainValidation(error, routeOf(request)?.declaredAt), request, reply);
      // The report describes the error as the pipeline renders it.
      const profile = request.vigil?.profile;
      if (profile && explained instanceof Error) profile.error = explained;
      respondWithError(explained, request, reply);
    });
    installRequestHooks(app, {
      serverHost,
      trustedHosts: new TrustedHosts(config.trustedHosts),
      cors: new CorsPolicy(config.cors),
      profiler,
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
    // Routes API routes have their own scope: uploads' hooks never run for the application's routes.
    await app.register(async (scope) => {
      await routeLimits.installUploads(scope);
      registerRoutes(scope, declared.definitions, routeLimits.execute);
    });
  } catch (error) {
    // A kernel that cannot start leaves no worker process or open store behind.
    await Promise.allSettled([limits?.close(), profiler?.close()]);
    release();
    throw error;
  }
}

/** The plugin: `await app.register(vigil, { config })`, before the application's routes. */
export const vigil: FastifyPluginAsync<VigilOptions> = fastifyPlugin(vigilPlugin, { fastify: '5.x', name: 'vigil' });
