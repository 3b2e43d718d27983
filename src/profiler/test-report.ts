/**
 * A request's report for the application's own tests, Symfony's `$client->getProfile()`:
 * `await app.vigil.report(response)` with an `inject()` or `fetch` response (or a token),
 * each built-in section typed under its name, so that a test can hold a route to its
 * statements (`report.database?.statements.length`) and an N+1 does not come back.
 */
import type { DatabaseSection, HttpClientSection } from './activity/sections.js';
import type { ExceptionSection } from './collectors/exception-panel.js';
import type { LogsSection } from './collectors/logs-panel.js';
import type { MemorySection } from './collectors/memory.js';
import type { PerformanceSection } from './collectors/performance.js';
import type { RequestSection } from './collectors/request-panel.js';
import type { ResponseSection } from './collectors/response-panel.js';
import type { RoutingSection } from './collectors/routing-panel.js';
import { BUILT_IN_COLLECTORS } from './collectors/index.js';
import { isCollectorError, type Report } from './model/report.js';
import type { Profiler } from './profiler.js';

/** A report with its built-in sections typed; a section its collector failed to give is absent. */
export interface TestReport extends Report {
  request?: RequestSection;
  response?: ResponseSection;
  exception?: ExceptionSection;
  routing?: RoutingSection;
  performance?: PerformanceSection;
  memory?: MemorySection;
  logs?: LogsSection;
  database?: DatabaseSection;
  httpClient?: HttpClientSection;
}

/** What names a request: its token, or a response that carries it (`inject()`'s, `fetch`'s). */
export type ReportTarget = string | { headers: Record<string, unknown> | { get(name: string): string | null } };

/** The token a target names, or undefined when the response carries none (production, a refused request). */
function tokenOf(target: ReportTarget): string | undefined {
  if (typeof target === 'string') return target;
  const { headers } = target;
  const value =
    typeof (headers as { get?: unknown }).get === 'function'
      ? (headers as { get(name: string): string | null }).get('x-debug-token')
      : (headers as Record<string, unknown>)['x-debug-token'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The report of `target`, once every report answered so far is written; undefined without a
 * profiler (production), without a token, or when the store kept none under it.
 */
export async function testReport(
  profiler: Profiler | undefined,
  target: ReportTarget,
): Promise<TestReport | undefined> {
  const token = tokenOf(target);
  if (profiler === undefined || token === undefined) return undefined;
  await profiler.writer.flush();
  const report = await profiler.read(token);
  if (report === undefined) return undefined;
  const typed: TestReport = { ...report };
  for (const { name } of BUILT_IN_COLLECTORS) {
    const section = report.collectors[name];
    if (section !== undefined && !isCollectorError(section)) Object.assign(typed, { [name]: section });
  }
  return typed;
}
