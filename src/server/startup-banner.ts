/** What `npm start` prints once it listens: where, in which mode, which routes, and where the profiler is. */
import { describeMode, type Config } from '../config/index.js';
import { keptReports } from './profiler-announcement.js';

export interface BannerFacts {
  url: string;
  /** Routes the application declared (the profiler's own left out). */
  routeCount: number;
  /** Where reports are stored, as the store names itself; undefined without a profiler. */
  store: string | undefined;
}

type BannerConfig = Pick<Config, 'appEnv' | 'debug' | 'modeReason' | 'routes' | 'profilerSecret'> &
  Parameters<typeof keptReports>[0];

export function startupBanner(config: BannerConfig, { url, routeCount, store }: BannerFacts): string {
  const lines = [`vigil listening on ${url} (${describeMode(config)})`];
  const routes = `${routeCount} route${routeCount === 1 ? '' : 's'}`;
  lines.push(config.routes ? `  routes:   ${config.routes} (${routes})` : '  routes:   none (ROUTES names no module)');
  lines.push(`  profiler: ${profilerLine(config, url, store)}`);
  return `${lines.join('\n')}\n`;
}

/** Debug mode's profiler; production's reports kept by PROFILER_KEEP, its pages opened by PROFILER_SECRET; or none. */
function profilerLine(config: BannerConfig, url: string, store: string | undefined): string {
  if (config.debug) return store === undefined ? 'off (no report store)' : `${url}/_profiler (reports in ${store})`;
  const pages =
    config.profilerSecret === undefined
      ? undefined
      : `${url}/_profiler, to a bearer of PROFILER_SECRET or its login page`;
  if (store !== undefined)
    return `reports of ${keptReports(config) ?? 'none'} kept in ${store}; ${pages ?? 'read them with vigil profiler:list'}`;
  return pages ?? 'off (debug is off)';
}
