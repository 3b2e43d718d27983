/**
 * The options Fastify takes only at construction, as vigil needs them, from one helper:
 * the logger (in debug mode through the profiler's tap, so that each report has its
 * request's log lines; no line per request), `frameworkErrors` and `clientErrorHandler`
 * answering through the error pipeline, the head limits (`maxHeaderSize` at the parser's
 * 64 KB so that the kernel's own 414 and 431 answer first; no bare 400 for a missing
 * Host), `bodyLimit` from POST_MAX_SIZE, `trustProxy` from TRUSTED_PROXIES, parameters up
 * to 500 characters, and TLS when given a key and certificate.
 *
 * @example
 * ```ts
 * const config = loadConfig();
 * const app = Fastify({ ...vigilFastifyOptions(config), pluginTimeout: 20_000 });
 * await app.register(vigil, { config });
 * ```
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { LogController, type FastifyHttpOptions, type FastifyHttpsOptions, type FastifyServerOptions } from 'fastify';
import { pino } from 'pino';
import { loadConfig, type Config } from './config.js';
import { createErrorResponder } from './errors/error-handler.js';
import { fastifyBodyLimit } from './limits/body-limit.js';
import { linkLogTap, LogTap, type LineSink } from './profiler/log-tap.js';
import type { VigilKernel } from './plugin.js';
import { answerClientError, PARSER_MAX_HEADER_SIZE } from './server/malformed-request.js';

export interface VigilFastifyExtras {
  /** Where log lines go (default: stdout). */
  logOutput?: LineSink | undefined;
  /** Serve HTTPS with this key and certificate (PEM). */
  https?: { key: string | Buffer; cert: string | Buffer } | undefined;
}

export function vigilFastifyOptions(config?: Config, extras?: VigilFastifyExtras & { https?: undefined }): FastifyHttpOptions<HttpServer>;
export function vigilFastifyOptions(config: Config, extras: VigilFastifyExtras & { https: NonNullable<VigilFastifyExtras['https']> }): FastifyHttpsOptions<HttpsServer>;
export function vigilFastifyOptions(config: Config = loadConfig(), { logOutput, https }: VigilFastifyExtras = {}): FastifyHttpOptions<HttpServer> | FastifyHttpsOptions<HttpsServer> {
  // In debug mode log lines pass through a tap that keeps each request's lines for its report.
  const tap = config.debug ? new LogTap(logOutput) : undefined;
  const logger = pino({ level: config.logLevel }, tap ?? logOutput);
  if (tap) linkLogTap(logger, tap);
  const fallback = createErrorResponder({ debug: config.debug, editor: config.ide });
  // The parser takes heads up to 64 KB, so that the kernel refuses them itself, in its own words.
  const head = { maxHeaderSize: PARSER_MAX_HEADER_SIZE, requireHostHeader: false };
  const options: FastifyServerOptions = {
    loggerInstance: logger,
    // One line per request would cost more than the rest of a 404; the profiler keeps it all.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    routerOptions: { maxParamLength: 500 },
    bodyLimit: fastifyBodyLimit(config.postMaxSize),
    // Errors Fastify raises before routing (a malformed URL) go through the same pipeline.
    frameworkErrors: (error, request, reply) => {
      const server = request.server as Partial<Pick<typeof request.server, 'vigil'>>;
      if (server.vigil) return (server.vigil as VigilKernel).answerFrameworkError(error, request, reply);
      fallback(error, request, reply);
    },
    // Requests Node's parser refuses never become requests: they are answered raw.
    clientErrorHandler: answerClientError({ debug: config.debug }),
  };
  if (https) {
    const tls = { key: https.key, cert: https.cert, ALPNProtocols: ['http/1.1'], handshakeTimeout: config.handshakeTimeoutMs, ...head };
    return { ...(options as FastifyServerOptions<HttpsServer>), https: tls };
  }
  return { ...options, http: head };
}
