/**
 * The service's open connections: at most MAX_CONNECTIONS (one more is closed as soon as
 * it is accepted, before any TLS or HTTP work, and the refusals are logged at most once a
 * second), and the list of those open, so that shutdown can cut them.
 */
import type { Server, Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { Throttle } from '../utils/throttle.js';

/** How often, at most, refused connections are logged. */
const REFUSAL_LOG_MS = 1000;

export class OpenConnections {
  private readonly sockets = new Set<Socket>();
  private refused = 0;
  private readonly refusalLog = new Throttle(() => this.logRefusals(), REFUSAL_LOG_MS);

  constructor(server: Server, private readonly maxConnections: number, private readonly log: FastifyBaseLogger) {
    // Every TCP connection, the ones still in their TLS handshake included.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    if (Number.isFinite(maxConnections)) {
      server.maxConnections = maxConnections;
      server.on('drop', () => this.countRefusal());
    }
  }

  get size(): number {
    return this.sockets.size;
  }

  /** Closes every open connection now, whatever it is doing. */
  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private countRefusal(): void {
    this.refused++;
    this.refusalLog.call();
  }

  /** Logs the refusals counted since the last line. */
  private logRefusals(): void {
    this.log.warn(`Refused ${this.refused} connection${this.refused === 1 ? '' : 's'}: MAX_CONNECTIONS (${this.maxConnections}) are open`);
    this.refused = 0;
  }
}
