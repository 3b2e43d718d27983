/**
 * What the plugin says once the application listens: the mode and why, and, in debug mode,
 * where the profiler is and where it keeps its reports (`npm start` has its own banner).
 */
import type { FastifyInstance, onListenHookHandler } from 'fastify';
import { describeMode, type Config } from '../config/index.js';

export interface Announcement {
  mode: string;
  /** Where reports go, in debug mode only. */
  store: string | undefined;
  /** Production: what opens the profiler's pages (PROFILER_SECRET or the application's check); undefined when nothing does. */
  opener?: string | undefined;
  /** Production: which reports are kept, and where (PROFILER_KEEP, PROFILER_SAMPLE); undefined when none are. */
  kept?: string | undefined;
}

type KeepConfig = Pick<Config, 'debug' | 'profilerKeep' | 'profilerSample' | 'profilerSlowRequestMs'>;

/** Production's reports as the start line names them: `errors, requests over 1000 ms and 5 % of the rest`. */
export function keptReports(config: KeepConfig): string | undefined {
  if (config.debug) return undefined;
  const kinds = config.profilerKeep.map((outcome) =>
    outcome === 'all'
      ? 'every request'
      : outcome === 'errors'
        ? 'errors'
        : `requests over ${config.profilerSlowRequestMs} ms`,
  );
  if (config.profilerSample > 0 && !config.profilerKeep.includes('all'))
    kinds.push(`${Math.round(config.profilerSample * 1000) / 10} % of ${kinds.length > 0 ? 'the rest' : 'requests'}`);
  if (kinds.length === 0) return undefined;
  return kinds.length === 1 ? kinds[0] : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
}

/**
 * `profiled`: debug mode; `reportStore`: the store the application gave, if any (else
 * PROFILER_DSN names it); `opener`: production's pages, and what opens them.
 */
export function announcementOf(
  config: Pick<Config, 'appEnv' | 'debug' | 'modeReason' | 'profilerStore'> & KeepConfig,
  profiled: boolean,
  reportStore: object | undefined,
  opener?: string,
): Announcement {
  const store = reportStore
    ? 'the reportStore given'
    : config.profilerStore.scheme === 'sqlite'
      ? config.profilerStore.file
      : config.profilerStore.location;
  const kept = profiled ? undefined : keptReports(config);
  return {
    mode: describeMode(config),
    store: profiled ? store : undefined,
    opener,
    kept: kept && `reports of ${kept} kept in ${store}`,
  };
}

export function announcementHook(
  app: FastifyInstance,
  { mode, store, opener, kept }: Announcement,
): onListenHookHandler {
  return (done) => {
    const address = app.server.address();
    const scheme = app.initialConfig.https ? 'https' : 'http';
    const where =
      typeof address === 'object' && address !== null
        ? `${scheme}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
        : String(address);
    app.log.info(
      store !== undefined
        ? `vigil: ${mode}; the profiler at ${where}/_profiler (loopback and PROFILER_ALLOW), reports stored in ${store}`
        : opener !== undefined
          ? `vigil: ${mode}; ${kept ? `${kept}; ` : ''}the profiler at ${where}/_profiler, to ${opener}`
          : kept
            ? `vigil: ${mode}; ${kept}, read with vigil profiler:list (PROFILER_SECRET opens the pages)`
            : `vigil: ${mode}; no profiler`,
    );
    done();
  };
}
