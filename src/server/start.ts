/**
 * Starts the service from a configuration: TLS material, the routes module, the kernel,
 * the listener under MAX_CONNECTIONS; stops it within SHUTDOWN_TIMEOUT, flushing queued
 * reports.
 */
import type { Config } from '../config.js';
import { createKernel, type Kernel, type KernelOptions } from '../app.js';
import { loadTlsMaterial } from './certificate.js';
import { OpenConnections } from './connections.js';
import { loadRoutesModule } from './routes-module.js';
import { Shutdown } from './shutdown.js';

export interface RunningService {
  kernel: Kernel;
  url: string;
  /** Closes the listener, gives requests in flight SHUTDOWN_TIMEOUT, then cuts the rest; resolves once queued reports are written. */
  stop(): Promise<void>;
  /** Cuts every connection still open now (a second signal); a stop in progress then ends. */
  cutNow(reason: string): void;
}

export interface StartOptions {
  /** The report counters of the other workers (WORKERS above 1), shown on the profiler's pages. */
  peerCounters?: KernelOptions['peerCounters'];
}

export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const tls = config.tls ? await loadTlsMaterial(config) : undefined;
  const module = config.routes ? await loadRoutesModule(config.routes) : undefined;
  const kernel = await createKernel({ config, tls, routes: module ? [module.declare] : [], routesModule: config.routes, collectors: module?.collectors ?? [], peerCounters: options.peerCounters });
  const connections = new OpenConnections(kernel.app.server, config.maxConnections, kernel.app.log);
  const shutdown = new Shutdown(kernel.app, connections, config.shutdownTimeoutMs);
  await kernel.app.listen({ host: config.host, port: config.port, listenTextResolver: (address) => `Listening on ${address}` });
  const address = kernel.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const scheme = config.tls ? 'https' : 'http';
  const defaultPort = scheme === 'https' ? 443 : 80;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${scheme}://${host}${port === defaultPort ? '' : `:${port}`}`;
  if (tls?.created) kernel.app.log.info(`Created a self-signed certificate for localhost: ${tls.certFile}`);
  return { kernel, url, stop: () => shutdown.close(), cutNow: (reason) => shutdown.cut(reason, ' at once') };
}
