/**
 * Starts the service from a configuration: TLS material, the routes module, the kernel
 * (built by the factory `main.ts` passes: the composition sits above this folder), the
 * listener under MAX_CONNECTIONS; stops it within SHUTDOWN_TIMEOUT, flushing queued reports.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/index.js';
import type { WriterCounters } from '../profiler/writer/report-writer.js';
import type { Collector } from '../profiler/model/request-profile.js';
import type { RoutesDeclaration } from '../routing/routes.js';
import { loadTlsMaterial } from './certificate.js';
import { OpenConnections } from './connections.js';
import { prettyLogOutput, type LogOutput } from './log-output.js';
import { loadRoutesModule } from './routes-module.js';
import { Shutdown } from './shutdown.js';

/** What the service asks of the kernel it starts. */
export interface ServiceKernelOptions {
  config: Config;
  tls: { key: string; cert: string } | undefined;
  routes: readonly RoutesDeclaration[];
  routesModule: string | undefined;
  collectors: readonly Collector[];
  /** Where log lines go, when not pino's JSON on stdout (a terminal: see log-output.ts). */
  logOutput?: LogOutput;
  /** An access line per request, for a person at a terminal. */
  accessLog?: boolean;
  /** The report counters of the other workers (WORKERS above 1), shown on the profiler's pages. */
  peerCounters?: (() => WriterCounters) | undefined;
}

export interface StartOptions {
  /** The report counters of the other workers (WORKERS above 1), shown on the profiler's pages. */
  peerCounters?: ServiceKernelOptions['peerCounters'];
}

export type KernelFactory<Kernel extends { app: FastifyInstance }> = (options: ServiceKernelOptions) => Promise<Kernel>;

export interface RunningService<Kernel extends { app: FastifyInstance } = { app: FastifyInstance }> {
  kernel: Kernel;
  url: string;
  /** Closes the listener, gives requests in flight SHUTDOWN_TIMEOUT, then cuts the rest; resolves once queued reports are written. */
  stop(): Promise<void>;
  /** Cuts every connection still open now (a second signal); a stop in progress then ends. */
  cutNow(reason: string): void;
}

export async function startService<Kernel extends { app: FastifyInstance }>(
  config: Config,
  createKernel: KernelFactory<Kernel>,
  options: StartOptions = {},
): Promise<RunningService<Kernel>> {
  const tls = config.tls ? await loadTlsMaterial(config) : undefined;
  const module = config.routes ? await loadRoutesModule(config.routes) : undefined;
  const logOutput = await prettyLogOutput(config);
  const kernel = await createKernel({
    config,
    tls,
    routes: module ? [module.declare] : [],
    routesModule: config.routes,
    collectors: module?.collectors ?? [],
    ...(logOutput ? { logOutput, accessLog: true } : {}),
    ...(options.peerCounters ? { peerCounters: options.peerCounters } : {}),
  });
  const connections = new OpenConnections(kernel.app.server, config.maxConnections, kernel.app.log);
  const shutdown = new Shutdown(kernel.app, connections, config.shutdownTimeoutMs);
  await kernel.app.listen({
    host: config.host,
    port: config.port,
    listenTextResolver: (address) => `Listening on ${address}`,
  });
  const address = kernel.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const scheme = config.tls ? 'https' : 'http';
  const defaultPort = scheme === 'https' ? 443 : 80;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${scheme}://${host}${port === defaultPort ? '' : `:${port}`}`;
  if (tls?.unsaved)
    kernel.app.log.warn(
      `The self-signed certificate for localhost could not be written to ${tls.certFile} (${tls.unsaved}): it is kept in memory for this run`,
    );
  else if (tls?.created) kernel.app.log.info(`Created a self-signed certificate for localhost: ${tls.certFile}`);
  if (tls?.warning) kernel.app.log.warn(tls.warning);
  return { kernel, url, stop: () => shutdown.close(), cutNow: (reason) => shutdown.cut(reason, ' at once') };
}
