/** Report stores for tests, made by the one factory the kernel and the command line use. */
import { loadConfig } from '../../src/config/index.js';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import { createReportStore, type ReportStoreOptions } from '../../src/profiler/storage/store-factory.js';

/** The store a kernel with this VAR_DIR (and PROFILER_DSN, if given) writes, unopened. */
export function storeOf(
  varDir: string,
  env: Record<string, string> = {},
  options: ReportStoreOptions = {},
): ReportStore {
  return createReportStore(loadConfig({ ...env, VAR_DIR: varDir }, varDir).profilerStore, options);
}

/** The same store, opened: the caller closes it. */
export async function openStoreOf(varDir: string, env: Record<string, string> = {}): Promise<ReportStore> {
  const store = storeOf(varDir, env);
  await store.open();
  return store;
}

/** A SQLite store at `file`, unopened. */
export function sqliteStore(file: string, options: ReportStoreOptions = {}): ReportStore {
  return createReportStore({ scheme: 'sqlite', file }, options);
}

/** The PostgreSQL store a DSN names (`postgres://...`), unopened. */
export function postgresStore(dsn: string, options: ReportStoreOptions = {}): ReportStore {
  return createReportStore(loadConfig({ PROFILER_DSN: dsn }).profilerStore, options);
}

/** Every stored token, sorted. */
export async function storedTokens(store: ReportStore): Promise<string[]> {
  return (await store.search({ limit: Number.MAX_SAFE_INTEGER })).reports.map((found) => found.token).sort();
}

/** A store that passes every call to a real one: tests override the calls they watch or break. */
export { DelegatingStore } from '../../src/profiler/storage/delegating-store.js';
