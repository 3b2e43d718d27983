/**
 * Every setting of the kernel, typed, read once at start from the environment and an
 * optional `.env` file (real environment variables win, as in Symfony).
 *
 * A bad value throws a {@link ConfigError} naming the variable; `main.ts` prints it on
 * one line and stops the start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { formatBytes } from './utils/bytes.js';

const APP_ENVS = ['dev', 'prod'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export interface Config {
  appEnv: AppEnv;
  /** Debug mode: x-debug-* headers, debug error pages, the profiler. */
  debug: boolean;
  /** Which settings decided the mode, as the start line says it (`NODE_ENV=production`). */
  modeReason: string;
  host: string;
  port: number;
  /** false: listen on plain HTTP, for running behind a TLS-terminating proxy. */
  tls: boolean;
  /** Absolute directory holding the development certificate and the report store. */
  varDir: string;
  /** Absolute path of a module that declares routes, or undefined. */
  routes: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** Peers whose X-Forwarded-* headers are believed: IPs or CIDRs. */
  trustedProxies: string[];
  /** Hosts answered (`TRUSTED_HOSTS`, Symfony's): a request for any other is a 400. Empty: every host. */
  trustedHosts: RegExp[];
  logLevel: string;
  /** Where debug reports are stored (`PROFILER_DSN`); `profiler/storage/store-factory.ts` opens it. */
  profilerStore: StoreDsn;
  /** Reports kept at most (`PROFILER_MAX_REPORTS`); the oldest go first. */
  profilerMaxReports: number;
  /** Reports older than this many milliseconds are deleted (`PROFILER_MAX_AGE`). */
  profilerMaxAgeMs: number;
  /** Networks besides loopback that may open the profiler: IPs or CIDRs (`PROFILER_ALLOW`). */
  profilerAllow: string[];
  /** Header and query parameter names redacted in reports besides the built-in secrets (`PROFILER_REDACT`). */
  profilerRedact: string[];
  /** The debug toolbar at the foot of the application's HTML pages, in debug mode (`PROFILER_TOOLBAR`). */
  profilerToolbar: boolean;
  /** Reports show the application's outgoing HTTP calls and database statements (`PROFILER_CAPTURE_APP`). */
  profilerCaptureApp: boolean;
  /** Statements slower than this many milliseconds are flagged in the database panel (`PROFILER_SLOW_QUERY`). */
  profilerSlowQueryMs: number;
  /** How debug pages link a source file to an editor (`VIGIL_IDE`); undefined: no links. */
  ide: EditorLinkFormat | undefined;
  cors: CorsSettings;
  /** POST_MAX_SIZE: the largest request body; `0` means no limit (php.ini's rule). */
  postMaxSize: ByteSize;
  /** UPLOAD_MAX_FILESIZE: the largest file in a multipart upload. */
  uploadMaxFilesize: ByteSize;
  /** MAX_FILE_UPLOADS: the most files one multipart body may carry (php.ini's max_file_uploads). */
  maxFileUploads: number;
  /** MAX_EXECUTION_TIME in seconds; `0` means no limit (php.ini's rule). */
  maxExecutionTime: number;
  /** MEMORY_LIMIT of one isolated request; `-1` means no limit (php.ini's rule). */
  memoryLimit: ByteSize;
  /** WORKERS: processes serving the port; 1 serves from this process alone, more start a primary (`server/cluster-primary.ts`). */
  workers: number;
  /** ISOLATED_WORKERS: processes that run isolated routes side by side, in each of the WORKERS. */
  isolatedWorkers: number;
  /** PARSED_BODY_MAX_SIZE: the largest JSON, form or text body (or a multipart body's text fields) held in memory; `0` leaves only POST_MAX_SIZE. */
  parsedBodyMaxSize: ByteSize;
  /** BODY_TIMEOUT in ms: how long a body may go without a byte before the 408; `0` means never. */
  bodyTimeoutMs: number;
  /** BODY_MIN_RATE in bytes/s: a body that averages under it after its first 10 s gets 408; `0` means never. */
  bodyMinRate: number;
  /** HANDSHAKE_TIMEOUT in ms: how long a TLS handshake may take. */
  handshakeTimeoutMs: number;
  /** MAX_CONNECTIONS: open connections at most, beyond which new ones are closed; Infinity for no limit. */
  maxConnections: number;
  /** SHUTDOWN_TIMEOUT in ms: how long requests in flight get after the first SIGTERM/SIGINT. */
  shutdownTimeoutMs: number;
}

/** An editor link: `template` with `%f` (the file) and `%l` (the line); paths starting with a `from` are rewritten to its `to` first. */
export interface EditorLinkFormat {
  template: string;
  pathMap: Array<[from: string, to: string]>;
}

/** Where reports are stored: a SQLite file, or a PostgreSQL database that several machines share. */
export type StoreDsn = SqliteDsn | PostgresDsn;

export interface SqliteDsn {
  scheme: 'sqlite';
  /** Absolute path of the SQLite file. */
  file: string;
}

export interface PostgresDsn {
  scheme: 'postgres';
  /** The URL as given, password included: for the driver only, never for a message. */
  url: string;
  /** The URL without its password and query, for messages (`postgres://vigil@db:5432/vigil`). */
  location: string;
  /** Connections to the database per process at most (`PROFILER_POOL_SIZE`). */
  poolSize: number;
}

/** A php.ini quantity: the bytes it means and the text the operator wrote (for messages). */
export interface ByteSize {
  /** Infinity when the setting means "no limit". */
  bytes: number;
  text: string;
}

/** The sizes no variable set: the plugin gives Fastify's own default where vigil's is not set. */
const defaultSizes = new WeakSet<ByteSize>();

/** True for a size taken from its default, not from the environment. */
export function isDefaultSize(size: ByteSize): boolean {
  return defaultSizes.has(size);
}

/** The cross-origin policy (NelmioCorsBundle's semantics). */
export interface CorsSettings {
  /** Origins allowed, matched case-insensitively, anchored as written. */
  allowOrigin: RegExp;
  allowMethods: string[];
  /** Lower-case request header names a preflight may ask for. */
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAge: number;
}

export const DEFAULT_CORS_ALLOW_ORIGIN = '^https?://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$';

/** A setting that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

export type Env = Record<string, string | undefined>;

/** The environment as the kernel sees it: `.env` in `cwd` (when present) under `process.env`. */
export function environment(cwd = process.cwd(), env: Env = process.env): Env {
  const file = resolve(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...env };
}

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
type SettingValues = { [Name in SettingName]: (typeof SETTINGS)[Name] extends Setting<infer T> ? T : never };

/** Each setting parsed, in the table's order: the environment's value, else its default. */
function readSettings(env: Env, cwd: string): SettingValues {
  const values: Record<string, unknown> = {};
  for (const [name, declared] of Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>) {
    const fromDefault = raw(env, name) === undefined;
    values[name] = declared.parse(
      fromDefault && declared.default !== undefined ? { [name]: declared.default } : env,
      name,
      { cwd, fromDefault },
    );
  }
  return values as SettingValues;
}

export function loadConfig(env: Env = environment(), cwd = process.cwd()): Config {
  const settings = readSettings(env, cwd);
  const { TLS_CERT: tlsCert, TLS_KEY: tlsKey, WORKERS: workers } = settings;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(tlsCert ? 'TLS_KEY' : 'TLS_CERT', 'TLS_CERT and TLS_KEY must be set together');
  }
  const varDir = settings.VAR_DIR ?? resolve(cwd, 'var');
  const store = settings.PROFILER_DSN ?? { scheme: 'sqlite', file: resolve(varDir, 'profiler.sqlite') };
  return {
    appEnv: settings.APP_ENV,
    debug: settings.APP_DEBUG ?? settings.APP_ENV === 'dev',
    modeReason: modeReason(env),
    host: settings.HOST,
    port: settings.PORT,
    tls: settings.TLS,
    varDir,
    routes: settings.ROUTES,
    tlsCert,
    tlsKey,
    trustedProxies: settings.TRUSTED_PROXIES,
    trustedHosts: settings.TRUSTED_HOSTS,
    logLevel: settings.LOG_LEVEL,
    profilerStore: store.scheme === 'postgres' ? { ...store, poolSize: settings.PROFILER_POOL_SIZE } : store,
    profilerMaxReports: settings.PROFILER_MAX_REPORTS,
    profilerMaxAgeMs: settings.PROFILER_MAX_AGE,
    profilerAllow: settings.PROFILER_ALLOW,
    profilerRedact: settings.PROFILER_REDACT,
    profilerToolbar: settings.PROFILER_TOOLBAR,
    profilerCaptureApp: settings.PROFILER_CAPTURE_APP,
    profilerSlowQueryMs: settings.PROFILER_SLOW_QUERY,
    ide: settings.VIGIL_IDE,
    cors: {
      allowOrigin: settings.CORS_ALLOW_ORIGIN,
      allowMethods: settings.CORS_ALLOW_METHODS,
      allowHeaders: settings.CORS_ALLOW_HEADERS,
      exposeHeaders: settings.CORS_EXPOSE_HEADERS,
      maxAge: settings.CORS_MAX_AGE,
    },
    postMaxSize: settings.POST_MAX_SIZE,
    uploadMaxFilesize: settings.UPLOAD_MAX_FILESIZE,
    maxFileUploads: settings.MAX_FILE_UPLOADS,
    maxExecutionTime: settings.MAX_EXECUTION_TIME,
    memoryLimit: settings.MEMORY_LIMIT,
    // Each of the WORKERS has its own pool: by default they share the cores (at most 8) between them.
    isolatedWorkers: settings.ISOLATED_WORKERS ?? Math.ceil(Math.min(availableParallelism(), 8) / workers),
    parsedBodyMaxSize: settings.PARSED_BODY_MAX_SIZE,
    bodyTimeoutMs: settings.BODY_TIMEOUT,
    bodyMinRate: settings.BODY_MIN_RATE,
    handshakeTimeoutMs: settings.HANDSHAKE_TIMEOUT,
    maxConnections: settings.MAX_CONNECTIONS,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT,
    workers,
  };
}

/** Parts of one multipart body at most (text fields and files), so MAX_FILE_UPLOADS' ceiling. */
export const MAX_PARTS = 1000;

/** WORKERS' ceiling: far beyond any core count, low enough that a typo cannot fork a thousand processes. */
const MAX_WORKERS = 256;

/** A whole number of processes from 1, or `auto`: one per core the process may use. */
function workerCount(env: Env, name: string): number {
  const value = given(env, name);
  if (value.toLowerCase() === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_WORKERS) {
    throw new ConfigError(name, `"${value}" is not a whole number from 1 to ${MAX_WORKERS}, or auto (one per core)`);
  }
  return Number(value);
}

/** setTimeout's ceiling (2^31 - 1 ms), in whole seconds. */
const MAX_TIMER_SECONDS = 2_147_483;

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * php.ini's quantity syntax: a whole number of bytes with an optional `K`, `M` or `G`
 * (powers of 1024, either case), e.g. `100M`. `unlimited` is the value that disables the
 * limit where PHP has one (`0` for post_max_size, `-1` for memory_limit).
 */
export function byteSize(
  env: Env,
  name: string,
  rule: { unlimited?: string; min?: number },
  fromDefault = false,
): ByteSize {
  const size = byteSizeOf(name, given(env, name), rule);
  if (fromDefault) defaultSizes.add(size);
  return size;
}

function byteSizeOf(name: string, text: string, rule: { unlimited?: string; min?: number }): ByteSize {
  if (rule.unlimited !== undefined && text === rule.unlimited) return { bytes: Infinity, text };
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  const bytes = match ? Number(match[1]) * UNITS[match[2]!.toUpperCase()]! : NaN;
  const allowed = rule.unlimited === undefined ? '' : `, or ${rule.unlimited} for no limit`;
  if (!Number.isSafeInteger(bytes)) {
    throw new ConfigError(name, `"${text}" is not a size: use bytes or a number with K, M or G, e.g. 100M${allowed}`);
  }
  const min = rule.min ?? 0;
  if (bytes < min) throw new ConfigError(name, `"${text}" is below the minimum of ${formatBytes(min)}${allowed}`);
  return { bytes, text };
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

/** The value of a setting that has a default: the table puts the default in `env` when the environment gives none. */
function given(env: Env, name: string): string {
  const value = raw(env, name);
  if (value === undefined) throw new Error(`${name} has neither a value nor a default`);
  return value;
}

/** The platform's variables read besides the settings: NODE_ENV decides APP_ENV's default. */
export const PLATFORM_VARIABLES = ['NODE_ENV'] as const;

/** Every Node deployment sets it; few know APP_ENV. */
function nodeEnvIsProduction(env: Env): boolean {
  return env.NODE_ENV?.trim().toLowerCase() === 'production';
}

function modeReason(env: Env): string {
  const appEnv = raw(env, 'APP_ENV');
  const debug = raw(env, 'APP_DEBUG');
  const reason =
    appEnv !== undefined
      ? `APP_ENV=${appEnv}`
      : nodeEnvIsProduction(env)
        ? 'NODE_ENV=production, APP_ENV not set'
        : 'APP_ENV not set, NODE_ENV not production';
  return debug === undefined ? reason : `${reason}, APP_DEBUG=${debug}`;
}

/** The mode as the start line says it: `prod, debug off: NODE_ENV=production, APP_ENV not set`. */
export function describeMode(config: Pick<Config, 'appEnv' | 'debug' | 'modeReason'>): string {
  return `${config.appEnv}, debug ${config.debug ? 'on' : 'off'}: ${config.modeReason}`;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T {
  const value = given(env, name);
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `"${value}" is not one of ${allowed.join(', ')}`);
}

export function flag(env: Env, name: string): boolean {
  const value = given(env, name).toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  throw new ConfigError(name, `"${env[name]}" is not a boolean (use 1 or 0)`);
}

export function integer(env: Env, name: string, min: number, max: number): number {
  const value = given(env, name);
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `"${value}" is not a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function regex(env: Env, name: string, flags: string): RegExp {
  return compiled(name, given(env, name), flags);
}

function compiled(name: string, source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new ConfigError(name, `"${source}" is not a valid regular expression: ${(error as Error).message}`);
  }
}

/** Comma-separated regular expressions, each anchored as written (Symfony's TRUSTED_HOSTS). */
function regexList(env: Env, name: string, flags: string): RegExp[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    if (item === '') throw new ConfigError(name, `"${value}" has an empty item`);
    return compiled(name, item, flags);
  });
}

/** A comma-separated list whose every item matches `item`. */
function list(env: Env, name: string, item: RegExp): string[] {
  const value = given(env, name);
  const items = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = items.find((entry) => !item.test(entry));
  if (bad !== undefined) throw new ConfigError(name, `"${bad}" is not a valid list item`);
  return items;
}

function path(env: Env, name: string, cwd: string): string | undefined {
  const value = raw(env, name);
  return value === undefined ? undefined : resolve(cwd, value);
}

function hostName(env: Env, name: string): string {
  const value = given(env, name);
  if (isIP(value) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(value)) return value;
  throw new ConfigError(name, `"${value}" is not a host name or IP address`);
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DAY_MS = DURATION_UNITS_MS.d!;
const MAX_DURATION_MS = 3650 * DAY_MS;
/** Below setTimeout's ceiling (about 24.8 days), which would otherwise fire at once. */
const MAX_TIMEOUT_MS = 24 * DAY_MS;
const DURATION_SYNTAX = '(a number of seconds, or with a unit: 90s, 30m, 48h, 2d)';

/** `90`, `90s`, `30m`, `48h`, `2d` in milliseconds; NaN for anything else. */
function durationMs(value: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(value);
  return match ? Number(match[1]) * DURATION_UNITS_MS[(match[2] || 's').toLowerCase()]! : Number.NaN;
}

/** A whole number of seconds, or a whole number with a unit: `90s`, `30m`, `48h`, `2d`. Returns milliseconds. */
export function duration(env: Env, name: string): number {
  const value = given(env, name);
  const ms = durationMs(value);
  if (!(ms >= 1000 && ms <= MAX_DURATION_MS)) {
    throw new ConfigError(name, `"${value}" is not a duration from 1s to 3650d ${DURATION_SYNTAX}`);
  }
  return ms;
}

/** A duration a timer waits, from 1s to 24d, in milliseconds; with `none`, `0` turns the timer off. */
export function timeout(env: Env, name: string, rule: { none?: boolean } = {}): number {
  const value = given(env, name);
  if (rule.none && value === '0') return 0;
  const ms = durationMs(value);
  if (!(ms >= 1000 && ms <= MAX_TIMEOUT_MS)) {
    throw new ConfigError(
      name,
      `"${value}" is not a duration from 1s to 24d ${DURATION_SYNTAX}${rule.none ? ', or 0 for none' : ''}`,
    );
  }
  return ms;
}

const POSTGRES_FORM = 'postgres://user:password@host:port/database';
const SUPPORTED_STORES = `the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and ${POSTGRES_FORM} (PostgreSQL)`;

/**
 * `sqlite:<path>`, the path resolved against `cwd`, or a `postgres://` (`postgresql://`)
 * URL. A refusal repeats no value but a plain path: any other may hold a password.
 */
function storeDsn(env: Env, name: string, cwd: string): SqliteDsn | Omit<PostgresDsn, 'poolSize'> | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  if (scheme === undefined) {
    // Only a plain path is repeated: anything else may be a mistyped URL with its password.
    const shown = /^[\w./~-]+$/.test(value) ? `"${value}"` : 'the value';
    throw new ConfigError(name, `${shown} has no scheme; ${SUPPORTED_STORES}`);
  }
  const lowerScheme = scheme.toLowerCase();
  if (lowerScheme === 'postgres' || lowerScheme === 'postgresql') return postgresDsn(name, value);
  if (lowerScheme !== 'sqlite')
    throw new ConfigError(name, `the scheme "${scheme}:" is not supported; ${SUPPORTED_STORES}`);
  const file = value.slice(scheme.length + 1);
  if (file.trim() === '')
    throw new ConfigError(name, 'sqlite: needs the path of the SQLite file, e.g. sqlite:var/profiler.sqlite');
  return { scheme: 'sqlite', file: resolve(cwd, file) };
}

function postgresDsn(name: string, value: string): Omit<PostgresDsn, 'poolSize'> {
  const invalid = (problem: string) => new ConfigError(name, `${problem}; the form is ${POSTGRES_FORM}`);
  let url: URL;
  let database: string;
  try {
    url = new URL(value);
    database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    throw invalid('not a valid PostgreSQL URL');
  }
  if (url.hostname === '') throw invalid('the PostgreSQL URL has no host');
  if (database === '') throw invalid('the PostgreSQL URL names no database');
  const user = url.username === '' ? '' : `${url.username}@`;
  return { scheme: 'postgres', url: value, location: `${url.protocol}//${user}${url.host}${url.pathname}` };
}

/** Symfony's `framework.ide` names, and the editors it lacks (cursor, idea, webstorm). */
const EDITORS: Record<string, string> = {
  atom: 'atom://core/open/file?filename=%f&line=%l',
  cursor: 'cursor://file/%f:%l',
  emacs: 'emacs://open?url=file://%f&line=%l',
  idea: 'idea://open?file=%f&line=%l',
  macvim: 'mvim://open?url=file://%f&line=%l',
  phpstorm: 'phpstorm://open?file=%f&line=%l',
  sublime: 'subl://open?url=file://%f&line=%l',
  textmate: 'txmt://open?url=file://%f&line=%l',
  vscode: 'vscode://file/%f:%l',
  'vscode-insiders': 'vscode-insiders://file/%f:%l',
  webstorm: 'webstorm://open?file=%f&line=%l',
};

/** Schemes a browser runs as script or as a document of their own: never a link of a debug page. */
const SCRIPT_SCHEMES = new Set(['javascript', 'data', 'vbscript']);

/**
 * An editor name or a link format with `%f` and `%l` (Symfony's `framework.ide`), either
 * followed by `&from>to` path mappings. A format must start with its own scheme and hold
 * no space or control character (browsers drop those, so `java\tscript:` would run).
 */
function editorLinkFormat(env: Env, name: string): EditorLinkFormat | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const known = /^([a-z-]+)(&.*)?$/i.exec(value);
  const editor = known ? EDITORS[known[1]!.toLowerCase()] : undefined;
  const format = editor !== undefined ? editor + (known![2] ?? '') : value;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(format)?.[1];
  if (scheme !== undefined && SCRIPT_SCHEMES.has(scheme.toLowerCase())) {
    throw new ConfigError(
      name,
      `the scheme "${scheme.toLowerCase()}:" may run script in the page; use an editor's own scheme`,
    );
  }
  // Mappings follow the last placeholder: `...%l&/srv/app/>/home/ann/app/`.
  const end = format.indexOf('&', Math.max(format.lastIndexOf('%f'), format.lastIndexOf('%l')));
  const template = end === -1 ? format : format.slice(0, end);
  if (scheme === undefined || !template.includes('%f') || /[\s\u0000-\u001f\u007f]/.test(format)) {
    throw new ConfigError(
      name,
      `"${value}" is not a known editor (${Object.keys(EDITORS).join(', ')}) nor a link format with %f and %l, e.g. myide://open?file=%f&line=%l`,
    );
  }
  const pathMap: Array<[string, string]> = [];
  for (const mapping of end === -1 ? [] : format.slice(end + 1).split('&')) {
    const arrow = mapping.indexOf('>');
    if (arrow <= 0)
      throw new ConfigError(
        name,
        `"${mapping}" is not a path mapping: write &from>to after the format, e.g. &/srv/app/>/home/ann/app/`,
      );
    pathMap.push([mapping.slice(0, arrow), mapping.slice(arrow + 1)]);
  }
  return { template, pathMap };
}

/** Comma-separated names (headers, query parameters): no spaces, `=`, `&` or `,` inside a name. */
function nameList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    if (!/^[^\s=&,]+$/.test(item)) throw new ConfigError(name, `"${item}" is not a header or query parameter name`);
    return item.toLowerCase();
  });
}

/** Comma-separated IPs or CIDRs (`10.0.0.0/8`, `::1/128`). */
export function ipList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    const [address = '', bits, extra] = item.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(name, `"${item}" is not an IP address or CIDR range`);
    }
    return item;
  });
}
