/**
 * Stopping with a deadline: the listener closes, requests in flight get SHUTDOWN_TIMEOUT,
 * then the connections still open are cut, so that the queued reports get written and the
 * process can exit. A second signal cuts at once.
 */
import type { FastifyInstance } from 'fastify';
import type { OpenConnections } from './connections.js';

export class Shutdown {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly connections: OpenConnections,
    private readonly timeoutMs: number,
  ) {}

  /** Resolves once the service is closed and its queued reports are written. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.connections.closeUnused();
    const deadline = setTimeout(() => this.cut(`SHUTDOWN_TIMEOUT (${this.timeoutMs / 1000}s) passed`), this.timeoutMs);
    // Fastify closes the idle connections, waits for the others, then runs the close hooks
    // (the profiler writes its queue there): cutting the connections lets it go on.
    this.closing = this.app.close().finally(() => clearTimeout(deadline));
    return this.closing;
  }

  /** Cuts every connection still open, and says how many it cut. */
  cut(reason: string, how = ''): void {
    const open = this.connections.size;
    this.app.log.warn(`${reason}: closing ${open} connection${open === 1 ? '' : 's'} still open${how}`);
    this.connections.destroyAll();
  }
}
