/**
 * Composes the kernel: Fastify with the error pipeline, the profiler (debug mode), the
 * application's routes under the per-request limits, and the answer for requests no route
 * matches (which never pay for the limits).
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import { CorsPolicy } from './cors/cors-policy.js';
import { BadRequestHttpError, HttpError, MethodNotAllowedHttpError } from './errors/http-errors.js';
import { createErrorResponder } from './errors/error-handler.js';
import { installStackTraces } from './debug/stack-trace.js';
import './debug/request-debug.js';
import { fastifyBodyLimit } from './limits/body-limit.js';
import { Limits } from './limits/limits.js';
import { defaultCollectors } from './profiler/collectors/index.js';
import { LogTap } from './profiler/log-tap.js';
import { Profiler, type ProfilerOptions } from './profiler/profiler.js';
import { declareProfilerRoutes } from './profiler/profiler-routes.js';
import type { Collector } from './profiler/request-profile.js';
import type { ReportStore } from './profiler/storage/report-store.js';
import type { MovedAside } from './profiler/storage/sqlite-check.js';
import { createReportStore } from './profiler/storage/store-factory.js';
import { registerRoutes } from './routing/register-routes.js';
import { RouteMatcher } from './routing/route-matcher.js';
import { Routes, type RoutesDeclaration } from './routing/routes.js';
import { noRouteError, sendRedirect, unmatchedOutcome } from './routing/unmatched-hook.js';
import { httpDate } from './server/http-date.js';
import { answerClientError, PARSER_MAX_HEADER_SIZE, refusedHead } from './server/malformed-request.js';
import { handOffToKernel } from './server/node-handoffs.js';
import { isValidHost, requestHost, urlHost } from './server/request-url.js';
import { hostName, TrustedHosts } from './server/trusted-hosts.js';

export interface KernelOptions {
  config: Config;
  /** Key and certificate to serve HTTPS with; absent when `config.tls` is off. */
  tls?: { key: string; cert: string } | undefined;
  /** The application's route declarations, applied in order. */
  routes?: readonly RoutesDeclaration[];
  /** The module `routes` came from: isolated routes' workers import it. */
  routesModule?: string | undefined;
  /** Where reports go in debug mode, unopened (the profiler opens it); defaults to the store PROFILER_DSN names. */
  reportStore?: ReportStore;
  /** Collectors added to the profiler's defaults; each adds a panel to every report. */
  collectors?: readonly Collector[];
  /** The report counters of the processes serving beside this one (WORKERS above 1), for the profiler's pages. */
  peerCounters?: ProfilerOptions['peers'];
  /** Tuning of the profiler's batched writer: queue bound, batch size, flush delay (tests use small ones). */
  profilerWriter?: ProfilerOptions['writer'];
  /** Where log lines go on (default: stdout); in debug mode they pass through the profiler's tap. */
  logOutput?: { write(line: string): unknown };
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
  HttpError.traceClientErrors = config.debug;
  const respondWithError = createErrorResponder({ debug: config.debug });
  // In debug mode log lines pass through a tap that keeps each request's lines for its report.
  const logTap = config.debug ? new LogTap(options.logOutput) : undefined;
  const logStream = logTap ?? options.logOutput;
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    // One line per request would cost more than the rest of a 404; the profiler keeps it all.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: fastifyBodyLimit(config.postMaxSize),
    // A missing Host is refused by the kernel (refusedHead), not by Node's bare 400.
    http: { maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false },
    ...(config.tls && options.tls
      ? { https: { key: options.tls.key, cert: options.tls.cert, ALPNProtocols: ['http/1.1'], maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false, handshakeTimeout: config.handshakeTimeoutMs } }
      : {}),
    // Errors Fastify raises before routing (a malformed URL) go through the same pipeline;
    // no hook has run for them, so the date and the debug token are set here.
    frameworkErrors: (error, request, reply) => {
      reply.header('date', httpDate());
      profiler?.adopt(request, reply, error);
      respondWithError(error, request, reply);
    },
    // Requests Node's parser refuses never become requests: they are answered raw.
    clientErrorHandler: answerClientError({ debug: config.debug }),
  }) as unknown as FastifyInstance;
  app.decorateRequest('debugToken', null);
  app.decorateRequest('serverHost', urlHost(config.host));
  handOffToKernel(app.server);

  const routes = new Routes();
  let matcher: RouteMatcher | undefined;
  let profiler: Profiler | undefined;
  if (config.debug) {
    // A damaged store file is kept aside for a look, and the service starts with a new one.
    const onDamaged = ({ file, movedTo, reason }: MovedAside) =>
      app.log.warn({ movedTo }, `The report store ${file} was damaged (${reason}): moved to ${movedTo} (with its -wal and -shm, if any); a new store was created`);
    profiler = new Profiler(options.reportStore ?? createReportStore(config.profilerStore, { onDamaged }), {
      collectors: [...defaultCollectors({ matcher: () => matcher, logTap }), ...(options.collectors ?? [])],
      redact: config.profilerRedact,
      allow: config.profilerAllow,
      retention: { maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs },
      ...(options.profilerWriter ? { writer: options.profilerWriter } : {}),
      ...(options.peerCounters ? { peers: options.peerCounters } : {}),
    });
    // Registered first, so that every request, even one refused below, has its token.
    await profiler.attach(app);
    declareProfilerRoutes(routes, profiler);
    app.addHook('onClose', () => profiler!.close());
  }
  for (const declare of options.routes ?? []) await declare(routes);
  const routeMatcher = new RouteMatcher(routes.definitions);
  matcher = routeMatcher;
  const limits = await Limits.create({ settings: config, definitions: routes.definitions, routesModule: options.routesModule, log: app.log });
  app.addHook('onClose', () => limits.close());
  app.setErrorHandler((error, request, reply) => respondWithError(limits.explain(error, request, reply), request, reply));

  const cors = new CorsPolicy(config.cors);
  const trustedHosts = new TrustedHosts(config.trustedHosts);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('date', httpDate());
    const refused = refusedHead(request);
    if (refused) {
      // A head this broken says nothing good of what follows on the connection, as Node judges too.
      reply.header('connection', 'close');
      return done(refused);
    }
    // A Host we could not print or link to safely is the client's mistake (Symfony does the same).
    const host = requestHost(request);
    if (!isValidHost(host)) return done(new BadRequestHttpError(`Invalid Host "${host}".`, 'VIGIL_ERR_INVALID_HOST'));
    if (!trustedHosts.trusts(host)) return done(new BadRequestHttpError(`Untrusted Host "${hostName(host)}".`, 'VIGIL_ERR_UNTRUSTED_HOST'));
    // The service is no proxy: a tunnel to anywhere is refused, whatever the target (an empty Allow).
    if (request.method === 'CONNECT') return done(new MethodNotAllowedHttpError([], 'The CONNECT method is not supported: this service opens no tunnels'));
    const origin = request.headers.origin;
    // The profiler's pages are for its own origin only: no origin may read them cross-origin.
    if (origin !== undefined && !profiler?.serves(request)) {
      const preflightMethod = request.headers['access-control-request-method'];
      // A preflight is answered here, on any path, before routing.
      if (request.method === 'OPTIONS' && preflightMethod !== undefined) return answerPreflight(cors, origin, request, reply, done);
      const headers = cors.actualRequestHeaders(origin);
      if (headers) reply.headers(headers);
    }
    // A client the profiler does not admit learns nothing of it: the ordinary 404.
    if (profiler?.refuses(request)) return done(noRouteError(request));
    if (!request.is404) return done();
    // Unrouted: answered here, before Fastify would read (and limit) the body.
    const outcome = unmatchedOutcome(routeMatcher, request);
    if ('error' in outcome) return done(outcome.error);
    sendRedirect(reply, outcome.redirectTo);
  });
  app.setNotFoundHandler((request, reply) => {
    const outcome = unmatchedOutcome(routeMatcher, request);
    if ('error' in outcome) throw outcome.error;
    return sendRedirect(reply, outcome.redirectTo);
  });
  try {
    // Matched routes live in their own scope: the limits' hooks and parsers never run for
    // the requests answered above.
    await app.register(async (scope) => {
      await limits.install(scope);
      registerRoutes(scope, routes.definitions, limits.execute);
    });
  } catch (error) {
    // A kernel that cannot start leaves no worker process or open store behind.
    await Promise.allSettled([limits.close(), profiler?.close()]);
    throw error;
  }
  return { app, routes, profiler };
}

function answerPreflight(cors: CorsPolicy, origin: string, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  const answer = cors.preflight(origin, String(request.headers['access-control-request-method']), request.headers['access-control-request-headers']);
  reply.headers(answer.headers);
  if (answer.verdict === 'method-refused') {
    const allowed = cors.allowMethods.join(', ');
    return done(new MethodNotAllowedHttpError(cors.allowMethods, `The CORS policy does not allow the method "${answer.method}" (Allow: ${allowed})`));
  }
  if (answer.verdict === 'header-refused') {
    return done(new BadRequestHttpError(`Unauthorized header ${answer.header} (allowed: ${cors.allowHeaders.join(', ')})`, 'VIGIL_ERR_CORS_HEADER'));
  }
  reply.code(200).send();
}
