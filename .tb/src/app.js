import Fastify, { LogController } from "fastify";
import { CorsPolicy } from "./cors/cors-policy.js";
import { BadRequestHttpError, HttpError, MethodNotAllowedHttpError } from "./errors/http-errors.js";
import { createErrorResponder } from "./errors/error-handler.js";
import { installStackTraces } from "./debug/stack-trace.js";
import "./debug/request-debug.js";
import { fastifyBodyLimit } from "./limits/body-limit.js";
import { Limits } from "./limits/limits.js";
import { defaultCollectors } from "./profiler/collectors/index.js";
import { LogTap } from "./profiler/log-tap.js";
import { Profiler } from "./profiler/profiler.js";
import { declareProfilerRoutes } from "./profiler/profiler-routes.js";
import { createReportStore } from "./profiler/storage/store-factory.js";
import { registerRoutes } from "./routing/register-routes.js";
import { RouteMatcher } from "./routing/route-matcher.js";
import { Routes } from "./routing/routes.js";
import { noRouteError, sendRedirect, unmatchedOutcome } from "./routing/unmatched-hook.js";
import { httpDate } from "./server/http-date.js";
import { answerClientError, PARSER_MAX_HEADER_SIZE, refusedHead } from "./server/malformed-request.js";
import { handOffToKernel } from "./server/node-handoffs.js";
import { isValidHost, requestHost, urlHost } from "./server/request-url.js";
import { hostName, TrustedHosts } from "./server/trusted-hosts.js";
async function createKernel(options) {
  const { config } = options;
  installStackTraces();
  HttpError.traceClientErrors = config.debug;
  const respondWithError = createErrorResponder({ debug: config.debug });
  const logTap = config.debug ? new LogTap(options.logOutput) : void 0;
  const logStream = logTap ?? options.logOutput;
  const app = Fastify({
    logger: { level: config.logLevel, ...logStream ? { stream: logStream } : {} },
    // One line per request would cost more than the rest of a 404; the profiler keeps it all.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: fastifyBodyLimit(config.postMaxSize),
    // A missing Host is refused by the kernel (refusedHead), not by Node's bare 400.
    http: { maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false },
    ...config.tls && options.tls ? { https: { key: options.tls.key, cert: options.tls.cert, ALPNProtocols: ["http/1.1"], maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false, handshakeTimeout: config.handshakeTimeoutMs } } : {},
    // Errors Fastify raises before routing (a malformed URL) go through the same pipeline;
    // no hook has run for them, so the date and the debug token are set here.
    frameworkErrors: (error, request, reply) => {
      reply.header("date", httpDate());
      profiler?.adopt(request, reply, error);
      respondWithError(error, request, reply);
    },
    // Requests Node's parser refuses never become requests: they are answered raw.
    clientErrorHandler: answerClientError({ debug: config.debug })
  });
  app.decorateRequest("debugToken", null);
  app.decorateRequest("serverHost", urlHost(config.host));
  handOffToKernel(app.server);
  const routes = new Routes();
  let matcher;
  let profiler;
  if (config.debug) {
    const onDamaged = ({ file, movedTo, reason }) => app.log.warn({ movedTo }, `The report store ${file} was damaged (${reason}): moved to ${movedTo} (with its -wal and -shm, if any); a new store was created`);
    profiler = new Profiler(options.reportStore ?? createReportStore(config.profilerStore, { onDamaged }), {
      collectors: [...defaultCollectors({ matcher: () => matcher, logTap }), ...options.collectors ?? []],
      redact: config.profilerRedact,
      allow: config.profilerAllow,
      retention: { maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs },
      ...options.profilerWriter ? { writer: options.profilerWriter } : {}
    });
    await profiler.attach(app);
    declareProfilerRoutes(routes, profiler);
    app.addHook("onClose", () => profiler.close());
  }
  for (const declare of options.routes ?? []) await declare(routes);
  const routeMatcher = new RouteMatcher(routes.definitions);
  matcher = routeMatcher;
  const limits = await Limits.create({ settings: config, definitions: routes.definitions, routesModule: options.routesModule, log: app.log });
  app.addHook("onClose", () => limits.close());
  app.setErrorHandler((error, request, reply) => respondWithError(limits.explain(error, request, reply), request, reply));
  const cors = new CorsPolicy(config.cors);
  const trustedHosts = new TrustedHosts(config.trustedHosts);
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("date", httpDate());
    const refused = refusedHead(request);
    if (refused) {
      reply.header("connection", "close");
      return done(refused);
    }
    const host = requestHost(request);
    if (!isValidHost(host)) return done(new BadRequestHttpError(`Invalid Host "${host}".`, "VIGIL_ERR_INVALID_HOST"));
    if (!trustedHosts.trusts(host)) return done(new BadRequestHttpError(`Untrusted Host "${hostName(host)}".`, "VIGIL_ERR_UNTRUSTED_HOST"));
    if (request.method === "CONNECT") return done(new MethodNotAllowedHttpError([], "The CONNECT method is not supported: this service opens no tunnels"));
    const origin = request.headers.origin;
    if (origin !== void 0 && !profiler?.serves(request)) {
      const preflightMethod = request.headers["access-control-request-method"];
      if (request.method === "OPTIONS" && preflightMethod !== void 0) return answerPreflight(cors, origin, request, reply, done);
      const headers = cors.actualRequestHeaders(origin);
      if (headers) reply.headers(headers);
    }
    if (profiler?.refuses(request)) return done(noRouteError(request));
    if (!request.is404) return done();
    const outcome = unmatchedOutcome(routeMatcher, request);
    if ("error" in outcome) return done(outcome.error);
    sendRedirect(reply, outcome.redirectTo);
  });
  app.setNotFoundHandler((request, reply) => {
    const outcome = unmatchedOutcome(routeMatcher, request);
    if ("error" in outcome) throw outcome.error;
    return sendRedirect(reply, outcome.redirectTo);
  });
  try {
    await app.register(async (scope) => {
      await limits.install(scope);
      registerRoutes(scope, routes.definitions, limits.execute);
    });
  } catch (error) {
    await Promise.allSettled([limits.close(), profiler?.close()]);
    throw error;
  }
  return { app, routes, profiler };
}
function answerPreflight(cors, origin, request, reply, done) {
  const answer = cors.preflight(origin, String(request.headers["access-control-request-method"]), request.headers["access-control-request-headers"]);
  reply.headers(answer.headers);
  if (answer.verdict === "method-refused") {
    const allowed = cors.allowMethods.join(", ");
    return done(new MethodNotAllowedHttpError(cors.allowMethods, `The CORS policy does not allow the method "${answer.method}" (Allow: ${allowed})`));
  }
  if (answer.verdict === "header-refused") {
    return done(new BadRequestHttpError(`Unauthorized header ${answer.header} (allowed: ${cors.allowHeaders.join(", ")})`, "VIGIL_ERR_CORS_HEADER"));
  }
  reply.code(200).send();
}
export {
  createKernel
};
//# sourceMappingURL=app.js.map
