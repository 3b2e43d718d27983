/**
 * The service's open connections: at most MAX_CONNECTIONS (one more is closed as soon as
 * it is accepted, before any TLS or HTTP work, and the refusals are logged at most once a
 * second), and the list of those open, so that shutdown can cut them, and close at once
 * those that never sent a request.
 */
import type { IncomingMessage } from 'node:http';
import type { Server, Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import { Throttle } from '../utils/throttle.js';

/** How often, at most, refused connections are logged. */
const REFUSAL_LOG_MS = 1000;

export class OpenConnections {
  private readonly sockets = new Set<Socket>();
  /** Connections (past TLS) that have not sent a request yet: Node does not count them idle at close. */
  private readonly unused = new Set<Socket>();
  private stopping = false;
  private refused = 0;
  private readonly refusalLog = new Throttle(() => this.logRefusals(), REFUSAL_LOG_MS);

  constructor(server: Server, private readonly maxConnections: number, private readonly log: FastifyBaseLogger) {
    // Every TCP connection, the ones still in their TLS handshake included.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Requests arrive on the TLS socket, made once the handshake is done, or on the TCP one.
    server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
      if (this.stopping) return void socket.destroy();
      this.unused.add(socket);
      socket.once('close', () => this.unused.delete(socket));
    });
    server.on('request', (request: IncomingMessage) => this.unused.delete(request.socket));
    if (Number.isFinite(maxConnections)) {
      server.maxConnections = maxConnections;
      server.on('drop', () => this.countRefusal());
    }
  }

  get size(): number {
    return this.sockets.size;
  }

  /** The stop begins: closes the connections that never sent a request, now and as they come. */
  closeUnused(): void {
    this.stopping = true;
    for (const socket of this.unused) socket.destroy();
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
