/** What `npm start` prints once it listens: where, in which mode, which routes, and where the profiler is. */
import { describeMode, type Config } from '../config/index.js';

export interface BannerFacts {
  url: string;
  /** Routes the application declared (the profiler's own left out). */
  routeCount: number;
  /** Where reports are stored, as the store names itself; undefined without a profiler. */
  store: string | undefined;
}

export function startupBanner(
  config: Pick<Config, 'appEnv' | 'debug' | 'modeReason' | 'routes'>,
  { url, routeCount, store }: BannerFacts,
): string {
  const lines = [`vigil listening on ${url} (${describeMode(config)})`];
  const routes = `${routeCount} route${routeCount === 1 ? '' : 's'}`;
  lines.push(config.routes ? `  routes:   ${config.routes} (${routes})` : '  routes:   none (ROUTES names no module)');
  lines.push(
    store === undefined ? '  profiler: off (debug is off)' : `  profiler: ${url}/_profiler (reports in ${store})`,
  );
  return `${lines.join('\n')}\n`;
}
