/**
 * The service's open connections: at most MAX_CONNECTIONS (one more is closed as soon as
 * it is accepted, before any TLS or HTTP work, and the refusals are logged at most once a
 * second), and the list of those open, so that shutdown can cut them, and close at once
 * those that never sent a request.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Server, Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { Throttle } from '../utils/throttle.js';

/** How often, at most, refused connections are logged. */
const REFUSAL_LOG_MS = 1000;
/** How often, at most, running out of file descriptors is logged. */
const DESCRIPTOR_LOG_MS = 60_000;
/** A first guess of the descriptors the process holds besides connections (stdio, the store, pipes). */
const OTHER_DESCRIPTORS = 256;

export class OpenConnections {
  private readonly sockets = new Set<Socket>();
  /** Connections (past TLS) that have not sent a request yet: Node does not count them idle at close. */
  private readonly unused = new Set<Socket>();
  private stopping = false;
  private refused = 0;
  private readonly refusalLog = new Throttle(() => this.logRefusals(), REFUSAL_LOG_MS);
  /** The open-file limit (ulimit -n), where the system tells it. */
  private readonly descriptorLimit = openFileLimit();
  /** Descriptors besides connections, as last counted. */
  private otherDescriptors = Math.min(OTHER_DESCRIPTORS, this.descriptorLimit / 2);
  private descriptorsLoggedAt = -Infinity;

  constructor(
    server: Server,
    private readonly maxConnections: number,
    private readonly log: FastifyBaseLogger,
  ) {
    // Every TCP connection, the ones still in their TLS handshake included.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      if (this.sockets.size + this.otherDescriptors >= this.descriptorLimit - 1) this.checkDescriptors();
    });
    // libuv closes what it cannot accept for lack of descriptors without telling Node (its
    // EMFILE trick), so the limit is watched above; an accept error it does pass on lands here.
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (error.syscall !== 'accept') return; // listen errors: the caller of listen has them
      if (error.code === 'EMFILE' || error.code === 'ENFILE') this.logDescriptors(undefined);
      else this.log.warn(`A connection could not be accepted: ${error.code ?? error.message}`);
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

  /**
   * When the connections and the other descriptors last counted fill the limit, counts them
   * again (which corrects the estimate) and logs if they do.
   */
  private checkDescriptors(): void {
    if (performance.now() - this.descriptorsLoggedAt < DESCRIPTOR_LOG_MS) return;
    let open: number;
    try {
      open = readdirSync('/proc/self/fd').length - 1; // less the one reading the directory
    } catch {
      return;
    }
    this.otherDescriptors = Math.max(0, open - this.sockets.size);
    if (open >= this.descriptorLimit - 1) this.logDescriptors(open);
  }

  private logDescriptors(open: number | undefined): void {
    const now = performance.now();
    if (now - this.descriptorsLoggedAt < DESCRIPTOR_LOG_MS) return;
    this.descriptorsLoggedAt = now;
    const limit = Number.isFinite(this.descriptorLimit) ? `ulimit -n ${this.descriptorLimit}` : 'the system limit';
    this.log.warn(
      `Out of file descriptors (${open ?? 'all'} open, ${limit}): new connections are refused by the system; raise the limit (ulimit -n, systemd's LimitNOFILE) or lower MAX_CONNECTIONS`,
    );
  }

  private countRefusal(): void {
    this.refused++;
    this.refusalLog.call();
  }

  /** Logs the refusals counted since the last line. */
  private logRefusals(): void {
    this.log.warn(
      `Refused ${this.refused} connection${this.refused === 1 ? '' : 's'}: MAX_CONNECTIONS (${this.maxConnections}) are open`,
    );
    this.refused = 0;
  }
}

/** The soft limit of open files (Linux's /proc), or Infinity where it cannot be read. */
function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    return line ? Number(line[1]) : Infinity;
  } catch {
    return Infinity;
  }
}
