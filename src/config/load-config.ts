/**
 * Every setting of the kernel, typed, read once at start from the environment and an
 * optional `.env` file (real environment variables win, as in Symfony).
 *
 * A bad value throws a {@link ConfigError} naming the variable; `main.ts` prints it on
 * one line and stops the start.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import type { EditorLinkFormat } from './editor-link-format.js';
import { environment, nodeEnvIsProduction, raw, type Env } from './environment.js';
import { SETTINGS, type AppEnv, type Setting, type SettingValues } from './settings.js';
import type { StoreDsn } from './store-dsn.js';
import type { ByteSize } from './validators.js';

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
