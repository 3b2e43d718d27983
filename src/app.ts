/**
 * Composes the kernel: Fastify with the error pipeline, the profiler (debug mode), the
 * application's routes under the per-request limits, and the answer for requests no route
 * matches (which never pay for the limits).
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { join } from 'node:path';
import type { Config } from './config.js';
import { BadRequestHttpError } from './errors/http-errors.js';
import { createErrorResponder } from './errors/error-handler.js';
import { installStackTraces } from './debug/stack-trace.js';
import './debug/request-debug.js';
import { fastifyBodyLimit } from './limits/body-limit.js';
import { Limits } from './limits/limits.js';
import { Profiler } from './profiler/profiler.js';
import { declareProfilerRoutes } from './profiler/profiler-routes.js';
import type { Collector } from './profiler/request-profile.js';
import type { ReportStore } from './profiler/storage/report-store.js';
import { SqliteReportStore } from './profiler/storage/sqlite-store.js';
import { registerRoutes } from './routing/register-routes.js';
import { RouteMatcher } from './routing/route-matcher.js';
import { Routes, type RoutesDeclaration } from './routing/routes.js';
import { sendRedirect, unmatchedOutcome } from './routing/unmatched-hook.js';
import { httpDate } from './server/http-date.js';
import { answerClientError, oversizedHead, PARSER_MAX_HEADER_SIZE } from './server/malformed-request.js';
import { isValidHost } from './server/request-url.js';

export interface KernelOptions {
  config: Config;
  /** Key and certificate to serve HTTPS with; absent when `config.tls` is off. */
  tls?: { key: string; cert: string } | undefined;
  /** The application's route declarations, applied in order. */
  routes?: readonly RoutesDeclaration[];
  /** The module `routes` came from: isolated routes' workers import it. */
  routesModule?: string | undefined;
  /** Where reports go in debug mode; defaults to SQLite under VAR_DIR. */
  reportStore?: ReportStore;
  /** Collectors added to the profiler's defaults. */
  collectors?: readonly Collector[];
}

export interface Kernel {
  app: FastifyInstance;
  routes: Routes;
  /** Present in debug mode only. */
  profiler: Profiler | undefined;
}

export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const { config } = options;
  installStackTraces();
  const respondWithError = createErrorResponder({ debug: config.debug });
  const app = Fastify({
    logger: { level: config.logLevel },
    // One line per request would cost more than the rest of a 404; the profiler keeps it all.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: fastifyBodyLimit(config.postMaxSize),
    http: { maxHeaderSize: PARSER_MAX_HEADER_SIZE },
    ...(config.tls && options.tls ? { https: { key: options.tls.key, cert: options.tls.cert, ALPNProtocols: ['http/1.1'], maxHeaderSize: PARSER_MAX_HEADER_SIZE } } : {}),
    // Errors Fastify raises before routing (a malformed URL) go through the same pipeline;
    // no hook has run for them, so the date is set here, and the identity serializer keeps
    // Fastify from appending a charset to the pipeline's content type.
    frameworkErrors: (error, request, reply) => {
      reply.header('date', httpDate()).serializer((payload: unknown) => payload as string);
      respondWithError(error, request, reply);
    },
    // Requests Node's parser refuses never become requests: they are answered raw.
    clientErrorHandler: answerClientError({ debug: config.debug }),
  }) as unknown as FastifyInstance;
  app.decorateRequest('debugToken', null);

  const routes = new Routes();
  let profiler: Profiler | undefined;
  if (config.debug) {
    profiler = new Profiler(options.reportStore ?? new SqliteReportStore(join(config.varDir, 'profiler.sqlite')));
    for (const collector of options.collectors ?? []) profiler.addCollector(collector);
    await profiler.attach(app);
    declareProfilerRoutes(routes, profiler);
    app.addHook('onClose', () => profiler!.close());
  }
  for (const declare of options.routes ?? []) await declare(routes);
  const matcher = new RouteMatcher(routes.definitions);
  const limits = await Limits.create({ settings: config, definitions: routes.definitions, routesModule: options.routesModule, log: app.log });
  app.addHook('onClose', () => limits.close());
  app.setErrorHandler((error, request, reply) => respondWithError(limits.explain(error, request, reply), request, reply));

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('date', httpDate());
    const oversized = oversizedHead(request);
    if (oversized) return done(oversized);
    // A Host we could not print or link to safely is the client's mistake (Symfony does the same).
    if (!isValidHost(request.host)) return done(new BadRequestHttpError(`Invalid Host "${request.host}".`, 'VIGIL_ERR_INVALID_HOST'));
    if (!request.is404) return done();
    // Unrouted: answered here, before Fastify would read (and limit) the body.
    const outcome = unmatchedOutcome(matcher, request);
    if ('error' in outcome) return done(outcome.error);
    sendRedirect(reply, outcome.redirectTo);
  });
  app.setNotFoundHandler((request, reply) => {
    const outcome = unmatchedOutcome(matcher, request);
    if ('error' in outcome) throw outcome.error;
    return sendRedirect(reply, outcome.redirectTo);
  });
  // Matched routes live in their own scope: the limits' hooks and parsers never run for
  // the requests answered above.
  await app.register(async (scope) => {
    await limits.install(scope);
    registerRoutes(scope, routes.definitions, limits.execute);
  });
  return { app, routes, profiler };
}
