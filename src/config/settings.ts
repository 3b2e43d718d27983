/**
 * Every setting of the kernel, declared once: its group, default, description and parser.
 * `loadConfig` reads them, `--help` and `docs/configuration.md` list them.
 */
import { nodeEnvIsProduction, raw, type Env } from './environment.js';
import { editorLinkFormat } from './editor-link-format.js';
import { storeDsn } from './store-dsn.js';
import {
  byteSize,
  duration,
  flag,
  hostName,
  integer,
  ipList,
  list,
  nameList,
  oneOf,
  path,
  regex,
  regexList,
  timeout,
  workerCount,
} from './validators.js';

const APP_ENVS = ['dev', 'prod'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const DEFAULT_CORS_ALLOW_ORIGIN = '^https?://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$';

/** How a setting is read: `env` holds its value, or its default when the environment gives none. */
export interface SettingContext {
  cwd: string;
  /** No value in the environment: the setting has its default (or none). */
  fromDefault: boolean;
}

/** One setting: the table below is where each is declared, for `loadConfig`, `--help` and `docs/configuration.md`. */
export interface Setting<T> {
  group: SettingGroup;
  /** The default as it would be written in the environment; the parser reads it like a given value. */
  default?: string;
  /** The default in words where it is no value of its own (derived from other settings); otherwise none. */
  defaultText?: string;
  /** The value that lifts the limit, and what it then means (`0: no limit`). */
  off?: string;
  /** One line: what the setting does. */
  description: string;
  parse(env: Env, name: string, context: SettingContext): T;
}

export type SettingGroup = keyof typeof SETTING_GROUPS;

/** The headings settings are listed under, in order. */
export const SETTING_GROUPS = {
  service: 'The service',
  profiler: 'The profiler',
  cors: 'Cross-origin requests (CORS)',
  limits: 'Per-request limits (php.ini names and syntax: bytes, or a number with K, M or G)',
  connections: 'Connections (durations: seconds, or 90s, 30m, 2h)',
} as const;

const setting = <T>(declared: Setting<T>): Setting<T> => declared;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every setting, in the order `--help` and the docs list them (and `loadConfig` reads them). */
export const SETTINGS = {
  APP_ENV: setting({
    group: 'service',
    defaultText: 'prod when NODE_ENV=production, else dev',
    description: 'dev or prod',
    parse: (env, name): AppEnv =>
      raw(env, name) === undefined ? (nodeEnvIsProduction(env) ? 'prod' : 'dev') : oneOf(env, name, APP_ENVS),
  }),
  APP_DEBUG: setting({
    group: 'service',
    defaultText: '1 in dev, 0 in prod',
    description: 'debug headers, debug error pages and the profiler, for the clients that may open the profiler',
    parse: (env, name) => (raw(env, name) === undefined ? undefined : flag(env, name)),
  }),
  WORKERS: setting({
    group: 'service',
    default: '1',
    description:
      'processes serving the port, 1 to 256, or auto (one per core); above 1 a primary starts, replaces and stops them',
    parse: (env, name) => workerCount(env, name),
  }),
  HOST: setting({
    group: 'service',
    default: 'localhost',
    description: 'address to listen on; localhost listens on 127.0.0.1 and ::1',
    parse: (env, name) => hostName(env, name),
  }),
  PORT: setting({
    group: 'service',
    default: '8443',
    description: 'port to listen on; 0 takes any free port',
    parse: (env, name) => integer(env, name, 0, 65535),
  }),
  TLS: setting({
    group: 'service',
    default: '1',
    description: '0 serves plain HTTP, behind a TLS-terminating proxy',
    parse: (env, name) => flag(env, name),
  }),
  TLS_CERT: setting({
    group: 'service',
    description:
      'PEM certificate, with TLS_KEY; without them a self-signed localhost certificate is made in VAR_DIR/tls/',
    parse: (env, name, { cwd }) => path(env, name, cwd),
  }),
  TLS_KEY: setting({
    group: 'service',
    description: 'PEM private key of TLS_CERT',
    parse: (env, name, { cwd }) => path(env, name, cwd),
  }),
  VAR_DIR: setting({
    group: 'service',
    defaultText: 'var/',
    description: 'directory of the development certificate and of the SQLite report store',
    parse: (env, name, { cwd }) => path(env, name, cwd),
  }),
  ROUTES: setting({
    group: 'service',
    description: 'a module that declares routes, e.g. examples/demo-routes.ts',
    parse: (env, name, { cwd }) => path(env, name, cwd),
  }),
  TRUSTED_PROXIES: setting({
    group: 'service',
    description: 'comma-separated IPs or CIDRs whose X-Forwarded-* headers are believed',
    parse: (env, name) => ipList(env, name),
  }),
  TRUSTED_HOSTS: setting({
    group: 'service',
    defaultText: 'any host',
    description:
      'comma-separated regular expressions of the hosts answered; any other gets a 400, which stops DNS rebinding',
    parse: (env, name) => regexList(env, name, 'i'),
  }),
  LOG_LEVEL: setting({
    group: 'service',
    default: 'info',
    description: LOG_LEVELS.join(', '),
    parse: (env, name) => oneOf(env, name, LOG_LEVELS),
  }),
  VIGIL_IDE: setting({
    group: 'service',
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
    parse: (env, name) => integer(env, name, 1, 100),
  }),
  PROFILER_MAX_REPORTS: setting({
    group: 'profiler',
    default: '10000',
    description: 'reports kept at most, 1 to 5000000; the oldest are deleted first',
    // Tokens repeat only after 2^24 (16.7 million) are issued: retention must keep far fewer.
    parse: (env, name) => integer(env, name, 1, 5_000_000),
  }),
  PROFILER_MAX_AGE: setting({
    group: 'profiler',
    default: '2d',
    description: 'how long reports are kept: seconds, or 90s, 30m, 48h, 2d',
    parse: (env, name) => duration(env, name),
  }),
  PROFILER_ALLOW: setting({
    group: 'profiler',
    description: 'comma-separated IPs or CIDRs besides loopback that may open the profiler',
    parse: (env, name) => ipList(env, name),
  }),
  PROFILER_REDACT: setting({
    group: 'profiler',
    description:
      'comma-separated header, query and form field names redacted in reports, besides the credential-like ones',
    parse: (env, name) => nameList(env, name),
  }),
  PROFILER_TOOLBAR: setting({
    group: 'profiler',
    default: '1',
    description: "0 leaves the debug toolbar off the application's HTML pages",
    parse: (env, name) => flag(env, name),
  }),
  PROFILER_CAPTURE_APP: setting({
    group: 'profiler',
    default: '1',
    description: "0 leaves the application's outgoing HTTP calls and database statements out of reports",
    parse: (env, name) => flag(env, name),
  }),
  PROFILER_SLOW_QUERY: setting({
    group: 'profiler',
    default: '100',
    description: 'milliseconds (0 to 3600000) above which a database statement is flagged slow',
    parse: (env, name) => integer(env, name, 0, 3_600_000),
  }),
  CORS_ALLOW_ORIGIN: setting({
    group: 'cors',
    default: DEFAULT_CORS_ALLOW_ORIGIN,
    description: 'regular expression of the origins browsers may call from, case-insensitive',
    parse: (env, name) => regex(env, name, 'i'),
  }),
  CORS_ALLOW_METHODS: setting({
    group: 'cors',
    default: 'GET, OPTIONS, POST, PUT, PATCH, DELETE',
    description: 'methods a cross-origin request may use',
    parse: (env, name) => list(env, name, /^[A-Za-z]+$/).map((method) => method.toUpperCase()),
  }),
  CORS_ALLOW_HEADERS: setting({
    group: 'cors',
    default: 'content-type, authorization',
    description: 'request headers a preflight may ask for',
    parse: (env, name) => list(env, name, HEADER_NAME).map((header) => header.toLowerCase()),
  }),
  CORS_EXPOSE_HEADERS: setting({
    group: 'cors',
    default: 'link',
    description: 'response headers a cross-origin page may read',
    parse: (env, name) => list(env, name, HEADER_NAME),
  }),
  CORS_MAX_AGE: setting({
    group: 'cors',
    default: '3600',
    description: 'seconds a browser may keep a preflight answer',
    parse: (env, name) => integer(env, name, 0, 2_147_483_647),
  }),
  POST_MAX_SIZE: setting({
    group: 'limits',
    default: '100M',
    off: '0: no limit',
    description: 'largest request body',
    parse: (env, name, { fromDefault }) => byteSize(env, name, { unlimited: '0' }, fromDefault),
  }),
  PARSED_BODY_MAX_SIZE: setting({
    group: 'limits',
    default: '512K',
    off: '0: POST_MAX_SIZE only',
    description: 'largest JSON, form or text body, or multipart text fields',
    parse: (env, name, { fromDefault }) => byteSize(env, name, { unlimited: '0' }, fromDefault),
  }),
  UPLOAD_MAX_FILESIZE: setting({
    group: 'limits',
    default: '100M',
    description: 'largest file in a multipart upload',
    parse: (env, name, { fromDefault }) => byteSize(env, name, { min: 1 }, fromDefault),
  }),
  MAX_FILE_UPLOADS: setting({
    group: 'limits',
    default: '20',
    description: 'files in one multipart upload, 1 to 1000',
    parse: (env, name) => integer(env, name, 1, MAX_PARTS),
  }),
  MAX_EXECUTION_TIME: setting({
    group: 'limits',
    default: '660',
    off: '0: no limit',
    description: 'seconds a handler may run',
    parse: (env, name) => integer(env, name, 0, MAX_TIMER_SECONDS),
  }),
  MEMORY_LIMIT: setting({
    group: 'limits',
    default: '512M',
    off: '-1: no limit',
    description: 'memory of one isolated request',
    parse: (env, name, { fromDefault }) => byteSize(env, name, { unlimited: '-1', min: 1024 * 1024 }, fromDefault),
  }),
  ISOLATED_WORKERS: setting({
    group: 'limits',
    defaultText: 'CPU count, at most 8, shared out between the WORKERS',
    description: 'worker processes for isolated routes, 1 to 64, in each of the WORKERS',
    parse: (env, name) => (raw(env, name) === undefined ? undefined : integer(env, name, 1, 64)),
  }),
  BODY_TIMEOUT: setting({
    group: 'limits',
    default: '60s',
    off: '0: no limit',
    description: 'a body that sends no byte for this long gets 408',
    parse: (env, name) => timeout(env, name, { none: true }),
  }),
  BODY_MIN_RATE: setting({
    group: 'limits',
    default: '500',
    off: '0: no limit',
    description: 'bytes/s a body must average after its first 10s, or it gets 408',
    parse: (env, name) => integer(env, name, 0, 1024 * 1024 * 1024),
  }),
  HANDSHAKE_TIMEOUT: setting({
    group: 'connections',
    default: '10s',
    description: 'time a TLS handshake may take',
    parse: (env, name) => timeout(env, name),
  }),
  MAX_CONNECTIONS: setting({
    group: 'connections',
    default: '10000',
    off: '0: no limit',
    description: 'open connections at most, per worker; more are closed at once',
    parse: (env, name) => integer(env, name, 0, 1_000_000) || Infinity,
  }),
  SHUTDOWN_TIMEOUT: setting({
    group: 'connections',
    default: '30s',
    description: 'time requests in flight get after SIGTERM/SIGINT; a second signal cuts them at once',
    parse: (env, name) => timeout(env, name),
  }),
};

export type SettingName = keyof typeof SETTINGS;
export type SettingValues = { [Name in SettingName]: (typeof SETTINGS)[Name] extends Setting<infer T> ? T : never };

/** Parts of one multipart body at most (text fields and files), so MAX_FILE_UPLOADS' ceiling. */
export const MAX_PARTS = 1000;

/** setTimeout's ceiling (2^31 - 1 ms), in whole seconds. */
const MAX_TIMER_SECONDS = 2_147_483;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
