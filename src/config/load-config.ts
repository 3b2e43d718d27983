/**
 * Every setting of the kernel, typed, read once at start from the environment and an
 * optional `.env` file (real environment variables win, as in Symfony). `Config` is made
 * from the table of `settings.ts`: a setting is declared there once.
 *
 * A bad value throws a {@link ConfigError} naming the variable; `main.ts` prints it on
 * one line and stops the start.
 */
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { environment, isTestRun, nodeEnvIsProduction, raw, type Env } from './environment.js';
import type { Setting, SettingGroup } from './setting.js';
import { SETTINGS, type KEEP_OUTCOMES } from './settings.js';
import type { SqliteDsn, StoreDsn } from './store-dsn.js';

type Declared = typeof SETTINGS;
type SettingName = keyof Declared;

/** Each setting's value, as its parser gives it. */
type SettingValues = { [Name in SettingName]: ReturnType<Declared[Name]['parse']> };

/** The fields of `Config` the settings of `Group` fill: named by each one's `field`, typed by its parser. */
type SettingFields<Group extends SettingGroup> = {
  [Name in SettingName as Declared[Name] extends Setting<unknown, infer Field, Group>
    ? Field
    : never]: SettingValues[Name];
};

/**
 * The settings as the kernel uses them: the field each setting names in the table (those
 * of the CORS group under `cors`, the policy's whole), and the fields derived from several.
 */
export interface Config extends SettingFields<Exclude<SettingGroup, 'cors'>> {
  /** Debug mode (APP_DEBUG, else on in dev): x-debug-* headers, debug error pages, the profiler. */
  debug: boolean;
  /** Which settings decided the mode, as the start line says it (`NODE_ENV=production`). */
  modeReason: string;
  /** Where debug reports are stored (PROFILER_DSN, PROFILER_POOL_SIZE); `profiler/storage/store-factory.ts` opens it. */
  profilerStore: StoreDsn;
  /**
   * PROFILER_KEEP: the outcomes whose reports production keeps (`all`, `errors`, `slow`),
   * empty for none; every report in debug mode.
   */
  profilerKeep: ReadonlyArray<(typeof KEEP_OUTCOMES)[number]>;
  /** ISOLATED_WORKERS: processes that run isolated routes side by side, in each of the WORKERS. */
  isolatedWorkers: number;
  cors: CorsSettings;
}

/** The cross-origin policy (NelmioCorsBundle's semantics): the fields of the CORS settings. */
type CorsSettings = SettingFields<'cors'>;

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
  const { TLS_CERT: tlsCert, TLS_KEY: tlsKey } = settings;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(tlsCert ? 'TLS_KEY' : 'TLS_CERT', 'TLS_CERT and TLS_KEY must be set together');
  }
  const store = settings.PROFILER_DSN ?? defaultStore(env, settings.VAR_DIR);
  const debug = settings.APP_DEBUG ?? settings.APP_ENV === 'dev';
  return {
    ...fieldsOf(settings, (group) => group !== 'cors'),
    cors: fieldsOf(settings, (group) => group === 'cors'),
    debug,
    // Debug mode keeps every report; production none unless asked.
    profilerKeep: debug ? ['all'] : (settings.PROFILER_KEEP ?? []),
    modeReason: modeReason(env),
    profilerStore: store.scheme === 'postgres' ? { ...store, poolSize: settings.PROFILER_POOL_SIZE } : store,
    // Each of the WORKERS has its own pool: by default they share the cores (at most 8) between them.
    isolatedWorkers: settings.ISOLATED_WORKERS ?? Math.ceil(Math.min(availableParallelism(), 8) / settings.WORKERS),
  };
}

/**
 * True when the profiler runs: in debug mode, and in production when PROFILER_KEEP or
 * PROFILER_SAMPLE asks for reports (then every request is followed, and few are kept).
 */
export function profilerRuns(config: Pick<Config, 'debug' | 'profilerKeep' | 'profilerSample'>): boolean {
  return config.debug || config.profilerKeep.length > 0 || config.profilerSample > 0;
}

/** The fields that the settings of the groups `picked` name in the table, each holding its setting's value. */
function fieldsOf<Group extends SettingGroup>(
  values: SettingValues,
  picked: (group: SettingGroup) => group is Group,
): SettingFields<Group> {
  const fields: Record<string, unknown> = {};
  for (const [name, declared] of Object.entries(SETTINGS) as Array<[SettingName, Setting<unknown>]>) {
    if (declared.field !== undefined && picked(declared.group)) fields[declared.field] = values[name];
  }
  return fields as SettingFields<Group>;
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

/**
 * `VAR_DIR/profiler.sqlite`; in a test runner's process, unless VAR_DIR says where, a store of
 * the run's own in the temporary directory, so that tests' reports stay out of the
 * development server's.
 */
function defaultStore(env: Env, varDir: string): SqliteDsn {
  if (raw(env, 'VAR_DIR') === undefined && isTestRun(env))
    return { scheme: 'sqlite', file: join(tmpdir(), `vigil-test-run-${process.pid}`, 'profiler.sqlite') };
  return { scheme: 'sqlite', file: resolve(varDir, 'profiler.sqlite') };
}
