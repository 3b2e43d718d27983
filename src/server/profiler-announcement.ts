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
}

/**
 * `profiled`: debug mode; `reportStore`: the store the application gave, if any (else
 * PROFILER_DSN names it); `opener`: production's pages, and what opens them.
 */
export function announcementOf(
  config: Pick<Config, 'appEnv' | 'debug' | 'modeReason' | 'profilerStore'>,
  profiled: boolean,
  reportStore: object | undefined,
  opener?: string,
): Announcement {
  const store = reportStore
    ? 'the reportStore given'
    : config.profilerStore.scheme === 'sqlite'
      ? config.profilerStore.file
      : config.profilerStore.location;
  return { mode: describeMode(config), store: profiled ? store : undefined, opener };
}

export function announcementHook(app: FastifyInstance, { mode, store, opener }: Announcement): onListenHookHandler {
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
          ? `vigil: ${mode}; the profiler at ${where}/_profiler, to ${opener}`
          : `vigil: ${mode}; no profiler`,
    );
    done();
  };
}
