/**
 * A window of the overview as it is shown: the minutes of the last hour, day or week added
 * up, and each kind's rows with their quantiles, the busiest first.
 */
import { quantile } from './latency-histogram.js';
import { addMinute, emptyMinute, type ExceptionCounts, type MinuteCounts } from './minute-counts.js';

export const OVERVIEW_WINDOWS = { '1h': 60, '24h': 24 * 60, '7d': 7 * 24 * 60 } as const;
export type OverviewWindow = keyof typeof OVERVIEW_WINDOWS;

/** Rows shown per kind. */
const ROWS = 50;

export interface OverviewSummary {
  window: OverviewWindow;
  requests: number;
  routes: Array<{
    route: string;
    requests: number;
    clientErrors: number;
    serverErrors: number;
    p50: number | null;
    p95: number | null;
    p99: number | null;
    slowest: { ms: number; token: string } | null;
  }>;
  statements: Array<{
    statement: string;
    count: number;
    totalMs: number;
    p95: number | null;
    routes: string[];
    worstRepeat: number;
    worstRepeatToken: string | null;
  }>;
  upstreams: Array<{ upstream: string; calls: number; errors: number; p95: number | null }>;
  exceptions: Array<{ fingerprint: string } & ExceptionCounts>;
}

export function summarize(window: OverviewWindow, minutes: readonly MinuteCounts[]): OverviewSummary {
  const total = emptyMinute();
  for (const minute of minutes) addMinute(total, minute);
  const routes = Object.entries(total.routes)
    .map(([route, counts]) => ({
      route,
      requests: counts.requests,
      clientErrors: counts.clientErrors,
      serverErrors: counts.serverErrors,
      p50: quantile(counts.latency, 0.5),
      p95: quantile(counts.latency, 0.95),
      p99: quantile(counts.latency, 0.99),
      slowest: counts.slowest,
    }))
    .sort((a, b) => b.requests - a.requests);
  return {
    window,
    requests: routes.reduce((sum, row) => sum + row.requests, 0),
    routes: routes.slice(0, ROWS),
    statements: Object.entries(total.statements)
      .map(([statement, counts]) => ({
        statement,
        count: counts.count,
        totalMs: Math.round(counts.totalMs * 1000) / 1000,
        p95: quantile(counts.latency, 0.95),
        routes: counts.routes,
        worstRepeat: counts.worstRepeat,
        worstRepeatToken: counts.worstRepeatToken,
      }))
      .sort((a, b) => b.totalMs - a.totalMs)
      .slice(0, ROWS),
    upstreams: Object.entries(total.upstreams)
      .map(([upstream, counts]) => ({
        upstream,
        calls: counts.calls,
        errors: counts.errors,
        p95: quantile(counts.latency, 0.95),
      }))
      .sort((a, b) => b.calls - a.calls)
      .slice(0, ROWS),
    exceptions: Object.entries(total.exceptions)
      .map(([fingerprint, counts]) => ({ fingerprint, ...counts }))
      .sort((a, b) => b.count - a.count || b.last - a.last)
      .slice(0, ROWS),
  };
}
