/**
 * Every setting of the kernel, declared once: its group, the `Config` field it fills, its
 * default, description and parser. `loadConfig` reads them, and the `Config` type is made
 * from them; `--help` and `docs/configuration.md` list them.
 */
import { resolve } from 'node:path';
import { nodeEnvIsProduction, raw } from './environment.js';
import { editorLinkFormat } from './editor-link-format.js';
import { setting } from './setting.js';
import { storeDsn } from './store-dsn.js';
import * as read from './validators.js';

const APP_ENVS = ['dev', 'prod'] as const;
type AppEnv = (typeof APP_ENVS)[number];

/** PARSED_BODY_MAX_SIZE's default in the standalone service; as a plugin, vigil leaves Fastify's own. */
export const STANDALONE_PARSED_BODY_MAX_SIZE: read.ByteSize = { bytes: 512 * 1024, text: '512K' };

const DEFAULT_CORS_ALLOW_ORIGIN = '^https?://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$';

/** A secret shorter than this is refused at start: guessing it online must stay hopeless. */
const PROFILER_SECRET_MIN_LENGTH = 32;
/** What PROFILER_KEEP lists; `none` alone keeps nothing. */
export const KEEP_OUTCOMES = ['all', 'errors', 'slow'] as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every setting, in the order `--help` and the docs list them (and `loadConfig` reads them). */
export const SETTINGS = {
  APP_ENV: setting({
    group: 'service',
    field: 'appEnv',
    defaultText: 'prod when NODE_ENV=production, else dev',
    description: 'dev or prod',
    parse: (env, name): AppEnv =>
      raw(env, name) === undefined ? (nodeEnvIsProduction(env) ? 'prod' : 'dev') : read.oneOf(env, name, APP_ENVS),
  }),
  APP_DEBUG: setting({
    group: 'service',
    defaultText: '1 in dev, 0 in prod',
    description: 'debug headers, debug error pages and the profiler, for the clients that may open the profiler',
    parse: (env, name) => (raw(env, name) === undefined ? undefined : read.flag(env, name)),
  }),
  WORKERS: setting({
    group: 'service',
    field: 'workers',
    default: '1',
    description:
      'processes serving the port, 1 to 256, or auto (one per core); above 1 a primary starts, replaces and stops them',
    parse: (env, name) => read.workerCount(env, name),
  }),
  HOST: setting({
    group: 'service',
    field: 'host',
    default: 'localhost',
    description: 'address to listen on; localhost listens on 127.0.0.1 and ::1',
    parse: (env, name) => read.hostName(env, name),
  }),
  PORT: setting({
    group: 'service',
    field: 'port',
    default: '8443',
    description: 'port to listen on; 0 takes any free port',
    parse: (env, name) => read.integer(env, name, 0, 65535),
  }),
  TLS: setting({
    group: 'service',
    field: 'tls',
    default: '1',
    description: '0 serves plain HTTP, behind a TLS-terminating proxy',
    parse: (env, name) => read.flag(env, name),
  }),
  TLS_CERT: setting({
    group: 'service',
    field: 'tlsCert',
    description:
      'PEM certificate, with TLS_KEY; without them a self-signed localhost certificate is made in VAR_DIR/tls/',
    parse: (env, name, { cwd }) => read.path(env, name, cwd),
  }),
  TLS_KEY: setting({
    group: 'service',
    field: 'tlsKey',
    description: 'PEM private key of TLS_CERT',
    parse: (env, name, { cwd }) => read.path(env, name, cwd),
  }),
  VAR_DIR: setting({
    group: 'service',
    field: 'varDir',
    defaultText: 'var/',
    description: 'directory of the development certificate and of the SQLite report store',
    parse: (env, name, { cwd }) => read.path(env, name, cwd) ?? resolve(cwd, 'var'),
  }),
  ROUTES: setting({
    group: 'service',
    field: 'routes',
    description: 'a module that declares routes, e.g. examples/demo-routes.ts',
    parse: (env, name, { cwd }) => read.path(env, name, cwd),
  }),
  TRUSTED_PROXIES: setting({
    group: 'service',
    field: 'trustedProxies',
    description: 'comma-separated IPs or CIDRs whose X-Forwarded-* headers are believed',
    parse: (env, name) => read.ipList(env, name),
  }),
  TRUSTED_HOSTS: setting({
    group: 'service',
    field: 'trustedHosts',
    defaultText: 'any host',
    description:
      'comma-separated regular expressions of the hosts answered; any other gets a 400, which stops DNS rebinding',
    parse: (env, name) => read.regexList(env, name, 'i'),
  }),
  LOG_LEVEL: setting({
    group: 'service',
    field: 'logLevel',
    default: 'info',
    description: LOG_LEVELS.join(', '),
    parse: (env, name) => read.oneOf(env, name, LOG_LEVELS),
  }),
  VIGIL_IDE: setting({
    group: 'service',
    field: 'ide',
    defaultText: 'no links',
    description:
      'editor that debug pages link files to: vscode, cursor, idea, phpstorm, ... or a format like myide://open?file=%f&line=%l',
    parse: (env, name) => editorLinkFormat(env, name),
  }),
  PROFILER_DSN: setting({
    group: 'profiler',
    defaultText: 'sqlite:VAR_DIR/profiler.sqlite',
    description:
      'where reports are stored: sqlite:<path>, or postgres://user:password@host:port/database shared by several machines',
    parse: (env, name, { cwd }) => storeDsn(env, name, cwd),
  }),
  PROFILER_POOL_SIZE: setting({
    group: 'profiler',
    default: '4',
    description: 'connections to PostgreSQL per process at most, 1 to 100',
    parse: (env, name) => read.integer(env, name, 1, 100),
  }),
  PROFILER_MAX_REPORTS: setting({
    group: 'profiler',
    field: 'profilerMaxReports',
    default: '10000',
    description: 'reports kept at most, 1 to 5000000; the oldest are deleted first',
    // Tokens repeat only after 2^24 (16.7 million) are issued: retention must keep far fewer.
    parse: (env, name) => read.integer(env, name, 1, 5_000_000),
  }),
  PROFILER_MAX_AGE: setting({
    group: 'profiler',
    field: 'profilerMaxAgeMs',
    default: '2d',
    description: 'how long reports are kept: seconds, or 90s, 30m, 48h, 2d',
    parse: (env, name) => read.duration(env, name),
  }),
  PROFILER_OVERVIEW_RETENTION: setting({
    group: 'profiler',
    field: 'profilerOverviewRetentionMs',
    default: '7d',
    description: "how long the overview's per-minute counts are kept: seconds, or 30m, 48h, 7d",
    parse: (env, name) => read.duration(env, name),
  }),
  PROFILER_ALLOW: setting({
    group: 'profiler',
    field: 'profilerAllow',
    description: 'comma-separated IPs or CIDRs besides loopback that may open the profiler',
    parse: (env, name) => read.ipList(env, name),
  }),
  PROFILER_SECRET: setting({
    group: 'profiler',
    field: 'profilerSecret',
    description:
      'at least 32 characters: in production, opens the profiler to a request bearing it (Authorization: Bearer) or to a browser logged in with it',
    parse: (env, name) => read.secret(env, name, PROFILER_SECRET_MIN_LENGTH),
  }),
  PROFILER_SESSION_MAX_AGE: setting({
    group: 'profiler',
    field: 'profilerSessionMaxAgeMs',
    default: '12h',
    description: "how long the production profiler's login lasts: seconds, or 90s, 30m, 12h",
    parse: (env, name) => read.duration(env, name),
  }),
  PROFILER_REDACT: setting({
    group: 'profiler',
    field: 'profilerRedact',
    description:
      'comma-separated header, query and form field names redacted in reports, besides the credential-like ones',
    parse: (env, name) => read.nameList(env, name),
  }),
  PROFILER_TOOLBAR: setting({
    group: 'profiler',
    field: 'profilerToolbar',
    default: '1',
    description: "0 leaves the debug toolbar off the application's HTML pages",
    parse: (env, name) => read.flag(env, name),
  }),
  PROFILER_CAPTURE_APP: setting({
    group: 'profiler',
    field: 'profilerCaptureApp',
    default: '1',
    description: "0 leaves the application's outgoing HTTP calls and database statements out of reports",
    parse: (env, name) => read.flag(env, name),
  }),
  PROFILER_SLOW_QUERY: setting({
    group: 'profiler',
    field: 'profilerSlowQueryMs',
    default: '100',
    description: 'milliseconds (0 to 3600000) above which a database statement is flagged slow',
    parse: (env, name) => read.integer(env, name, 0, 3_600_000),
  }),
  PROFILER_KEEP: setting({
    group: 'profiler',
    defaultText: 'all in debug mode, none in production',
    description:
      'production: the reports kept, decided as each request ends: all, errors (5xx answers, unhandled exceptions) and slow (over PROFILER_SLOW_REQUEST), comma-separated, or none; debug mode keeps all',
    parse: (env, name) => (raw(env, name) === undefined ? undefined : read.keepList(env, name, KEEP_OUTCOMES)),
  }),
  PROFILER_SAMPLE: setting({
    group: 'profiler',
    field: 'profilerSample',
    default: '0',
    description: 'production: the share, 0 to 1, of the reports PROFILER_KEEP leaves out that are kept all the same',
    parse: (env, name) => read.fraction(env, name),
  }),
  PROFILER_SLOW_REQUEST: setting({
    group: 'profiler',
    field: 'profilerSlowRequestMs',
    default: '1s',
    description: 'how long a request must take to be slow for PROFILER_KEEP: 250ms, 1s, 2m',
    parse: (env, name) => read.shortDuration(env, name),
  }),
  PROFILER_KEEP_MAX_PER_SECOND: setting({
    group: 'profiler',
    field: 'profilerKeepMaxPerSecond',
    default: '10',
    description:
      'production: reports kept per second at most, 1 to 10000, so that a burst of errors costs a bounded share; the others are counted',
    parse: (env, name) => read.integer(env, name, 1, 10_000),
  }),
  CORS_ALLOW_ORIGIN: setting({
    group: 'cors',
    field: 'allowOrigin',
    default: DEFAULT_CORS_ALLOW_ORIGIN,
    description: 'regular expression of the origins browsers may call from, case-insensitive',
    parse: (env, name) => read.regex(env, name, 'i'),
  }),
  CORS_ALLOW_METHODS: setting({
    group: 'cors',
    field: 'allowMethods',
    default: 'GET, OPTIONS, POST, PUT, PATCH, DELETE',
    description: 'methods a cross-origin request may use',
    parse: (env, name) => read.list(env, name, /^[A-Za-z]+$/).map((method) => method.toUpperCase()),
  }),
  CORS_ALLOW_HEADERS: setting({
    group: 'cors',
    field: 'allowHeaders',
    default: 'content-type, authorization',
    description: 'request headers a preflight may ask for',
    parse: (env, name) => read.list(env, name, HEADER_NAME).map((header) => header.toLowerCase()),
  }),
  CORS_EXPOSE_HEADERS: setting({
    group: 'cors',
    field: 'exposeHeaders',
    default: 'link',
    description: 'response headers a cross-origin page may read',
    parse: (env, name) => read.list(env, name, HEADER_NAME),
  }),
  CORS_MAX_AGE: setting({
    group: 'cors',
    field: 'maxAge',
    default: '3600',
    description: 'seconds a browser may keep a preflight answer',
    parse: (env, name) => read.integer(env, name, 0, 2_147_483_647),
  }),
  POST_MAX_SIZE: setting({
    group: 'limits',
    field: 'postMaxSize',
    default: '100M',
    off: '0: no limit',
    description: 'largest request body',
    parse: (env, name) => read.byteSize(env, name, { unlimited: '0' }),
  }),
  PARSED_BODY_MAX_SIZE: setting({
    group: 'limits',
    field: 'parsedBodyMaxSize',
    default: STANDALONE_PARSED_BODY_MAX_SIZE.text,
    off: '0: POST_MAX_SIZE only',
    description: 'largest JSON, form or text body, or multipart text fields',
    // Not set: undefined, and the caller gives its default: the standalone service the one
    // above, the plugin Fastify's own bodyLimit.
    parse: (env, name, { fromDefault }) => (fromDefault ? undefined : read.byteSize(env, name, { unlimited: '0' })),
  }),
  UPLOAD_MAX_FILESIZE: setting({
    group: 'limits',
    field: 'uploadMaxFilesize',
    default: '100M',
    description: 'largest file in a multipart upload',
    parse: (env, name) => read.byteSize(env, name, { min: 1 }),
  }),
  MAX_FILE_UPLOADS: setting({
    group: 'limits',
    field: 'maxFileUploads',
    default: '20',
    description: 'files in one multipart upload, 1 to 1000',
    parse: (env, name) => read.integer(env, name, 1, MAX_PARTS),
  }),
  MAX_EXECUTION_TIME: setting({
    group: 'limits',
    field: 'maxExecutionTime',
    default: '660',
    off: '0: no limit',
    description: 'seconds a handler may run',
    parse: (env, name) => read.integer(env, name, 0, MAX_TIMER_SECONDS),
  }),
  MEMORY_LIMIT: setting({
    group: 'limits',
    field: 'memoryLimit',
    default: '512M',
    off: '-1: no limit',
    description: 'memory of one isolated request',
    parse: (env, name) => read.byteSize(env, name, { unlimited: '-1', min: 1024 * 1024 }),
  }),
  ISOLATED_WORKERS: setting({
    group: 'limits',
    defaultText: 'CPU count, at most 8, shared out between the WORKERS',
    description: 'worker processes for isolated routes, 1 to 64, in each of the WORKERS',
    parse: (env, name) => (raw(env, name) === undefined ? undefined : read.integer(env, name, 1, 64)),
  }),
  BODY_TIMEOUT: setting({
    group: 'limits',
    field: 'bodyTimeoutMs',
    default: '60s',
    off: '0: no limit',
    description: 'a body that sends no byte for this long gets 408',
    parse: (env, name) => read.timeout(env, name, { none: true }),
  }),
  BODY_MIN_RATE: setting({
    group: 'limits',
    field: 'bodyMinRate',
    default: '500',
    off: '0: no limit',
    description: 'bytes/s a body must average after its first 10s, or it gets 408',
    parse: (env, name) => read.integer(env, name, 0, 1024 * 1024 * 1024),
  }),
  HANDSHAKE_TIMEOUT: setting({
    group: 'connections',
    field: 'handshakeTimeoutMs',
    default: '10s',
    description: 'time a TLS handshake may take',
    parse: (env, name) => read.timeout(env, name),
  }),
  MAX_CONNECTIONS: setting({
    group: 'connections',
    field: 'maxConnections',
    default: '10000',
    off: '0: no limit',
    description: 'open connections at most, per worker; more are closed at once',
    parse: (env, name) => read.integer(env, name, 0, 1_000_000) || Infinity,
  }),
  SHUTDOWN_TIMEOUT: setting({
    group: 'connections',
    field: 'shutdownTimeoutMs',
    default: '30s',
    description: 'time requests in flight get after SIGTERM/SIGINT; a second signal cuts them at once',
    parse: (env, name) => read.timeout(env, name),
  }),
};

/** Parts of one multipart body at most (text fields and files), so MAX_FILE_UPLOADS' ceiling. */
export const MAX_PARTS = 1000;

/** setTimeout's ceiling (2^31 - 1 ms), in whole seconds. */
const MAX_TIMER_SECONDS = 2_147_483;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
