/**
 * The options Fastify takes only at construction, as vigil needs them, from one helper
 * ({@link vigilFastifyOptions}): the logger, the answers to errors raised before routing, the head,
 * body and parameter limits, `trustProxy` and TLS.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyBaseLogger, FastifyHttpOptions, FastifyHttpsOptions, FastifyServerOptions } from 'fastify';
import { pino, type LoggerOptions } from 'pino';
import { loadConfig, profilerRuns, type Config } from './config/index.js';
import { createErrorResponder } from './errors/error-handler.js';
import { fastifyBodyLimit } from './limits/body-limit.js';
import { MAX_PARAM_LENGTH } from './routing/shape-match.js';
import { ProfilerAccess } from './profiler/access/access.js';
import { linkLogTap, LogTap, type LineSink } from './profiler/activity/log-tap.js';
import type { VigilKernel } from './plugin.js';
import { markPretty, prettyLogOutputSync } from './server/log-output.js';
import { deferringChildren } from './server/request-logger.js';
import { answerClientError, PARSER_MAX_HEADER_SIZE } from './guards/malformed-request.js';

export interface VigilFastifyExtras {
  /** Where log lines go (default: stdout, pretty at a terminal in debug mode). */
  logOutput?: LineSink | undefined;
  /**
   * The application's logger: pino options (level, serializers, redact...; `stream` for where
   * lines go), or a pino instance. Either way, wherever reports are made (debug mode,
   * production with PROFILER_KEEP) its lines reach them.
   * Give it here rather than spreading `logger` over the result, which Fastify refuses
   * beside the `loggerInstance` this returns.
   */
  logger?: (LoggerOptions & { stream?: LineSink }) | FastifyBaseLogger | undefined;
  /** Serve HTTPS with this key and certificate (PEM). */
  https?: { key: string | Buffer; cert: string | Buffer } | undefined;
}

/**
 * Fastify's constructor options for `config`: in debug mode the logger passes through the profiler's
 * tap, so each report has its request's lines; `frameworkErrors` and `clientErrorHandler` answer
 * through the error pipeline; `bodyLimit` comes from POST_MAX_SIZE and `trustProxy` from TRUSTED_PROXIES.
 *
 * @example
 * ```ts
 * const config = loadConfig();
 * const app = Fastify({ ...vigilFastifyOptions(config), pluginTimeout: 20_000 });
 * await app.register(vigil, { config });
 * ```
 */
export function vigilFastifyOptions(
  config?: Config,
  extras?: VigilFastifyExtras & { https?: undefined },
): FastifyHttpOptions<HttpServer>;
export function vigilFastifyOptions(
  config: Config,
  extras: VigilFastifyExtras & { https: NonNullable<VigilFastifyExtras['https']> },
): FastifyHttpsOptions<HttpsServer>;
export function vigilFastifyOptions(
  config: Config = loadConfig(),
  { logOutput, https, logger: given }: VigilFastifyExtras = {},
): FastifyHttpOptions<HttpServer> | FastifyHttpsOptions<HttpsServer> {
  const logger = applicationLogger(config, given, logOutput);
  // Debug output goes only to the clients that may open the profiler, here as in the plugin.
  const access = config.debug
    ? new ProfilerAccess(config.profilerAllow, { trustedProxies: config.trustedProxies })
    : undefined;
  const fallback = createErrorResponder({
    debug: config.debug,
    editor: config.ide,
    debugFor: access && ((request) => access.admits(request)),
  });
  // The parser takes heads up to 64 KB, so that the kernel refuses them itself, in its own words
  // (its 414 and 431), and a missing Host gets the kernel's answer, not the parser's bare 400.
  const head = { maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false };
  const options: FastifyServerOptions = {
    // Said, though unset: fastify-cli's `start -o` assigns these options over its own
    // `logger`, which Fastify refuses beside `loggerInstance`.
    logger: undefined,
    // Each request's child logger is made when its code first logs, not for every request,
    // and drops Fastify's line per request (the profiler keeps it all). Plain options only:
    // an object of vigil's copy of fastify is refused by another copy (NestJS's adapter's).
    loggerInstance: deferringChildren(logger),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // The route matcher tries requirements on values no longer than the router takes.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: fastifyBodyLimit(config.postMaxSize),
    // Errors Fastify raises before routing (a malformed URL) go through the same pipeline.
    frameworkErrors: (error, request, reply) => {
      const server = request.server as Partial<Pick<typeof request.server, 'vigil'>>;
      if (server.vigil) return (server.vigil as VigilKernel).answerFrameworkError(error, request, reply);
      fallback(error, request, reply);
    },
    // Requests Node's parser refuses never become requests: they are answered raw.
    clientErrorHandler: answerClientError({
      debug: config.debug,
      ...(access ? { debugFor: (socket) => access.admitsPeer(socket) } : {}),
    }),
  };
  if (https) {
    const tls = {
      key: https.key,
      cert: https.cert,
      minVersion: 'TLSv1.2' as const,
      ciphers: TLS12_SUITES,
      ALPNProtocols: ['http/1.1'],
      handshakeTimeout: config.handshakeTimeoutMs,
      ...head,
    };
    return { ...(options as FastifyServerOptions<HttpsServer>), https: tls };
  }
  return { ...options, http: head };
}

/**
 * The TLS 1.2 suites offered: forward-secret (ECDHE) and AEAD only, for an ECDSA or an RSA
 * key; no static RSA key exchange, no CBC. TLS 1.3 keeps Node's suites, which are all of that kind.
 */
const TLS12_SUITES = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

const isLoggerInstance = (logger: object): logger is FastifyBaseLogger =>
  typeof (logger as { child?: unknown }).child === 'function' &&
  typeof (logger as { info?: unknown }).info === 'function';

/**
 * The logger Fastify gets: the application's instance, or one built from its options (or
 * from LOG_LEVEL); wherever reports are made, its lines pass through a tap that keeps each
 * request's lines for its report.
 */
function applicationLogger(
  config: Config,
  given: VigilFastifyExtras['logger'],
  logOutput: LineSink | undefined,
): FastifyBaseLogger {
  // Wherever the profiler runs (debug mode, production reports), a report has its request's lines.
  const tapped = profilerRuns(config);
  if (given !== undefined && isLoggerInstance(given)) {
    if (tapped) {
      // The instance keeps its destination; its lines go there through the tap.
      const holder = given as unknown as Record<symbol, LineSink>;
      const tap = new LogTap(holder[pino.symbols.streamSym]);
      holder[pino.symbols.streamSym] = tap;
      linkLogTap(given, tap);
    }
    return given;
  }
  const { stream, transport, ...options } = (given ?? {}) as LoggerOptions & { stream?: LineSink };
  // A transport (pino-pretty, a file, a collector) is made here, as pino would make it, so
  // that its lines pass through the tap too: given to pino beside a stream, it takes them all.
  const transported = transport === undefined || stream !== undefined ? undefined : pino.transport(transport);
  const pretty = (stream ?? logOutput ?? transported) ? undefined : prettyLogOutputSync(config);
  const output = stream ?? transported ?? logOutput ?? pretty;
  const tap = tapped ? new LogTap(output) : undefined;
  const logger = pino({ level: config.logLevel, ...options }, tap ?? output);
  if (tap) linkLogTap(logger, tap);
  if (pretty) markPretty(logger);
  return logger;
}
