/**
 * Clients gone before their answer, seen once per connection. Fastify's onRequestAbort gives
 * every request a listener of its own on its message; an HTTP/1 client can only leave by
 * closing its connection, so one listener per connection sees the same requests: those still
 * in flight on it when it closes. HTTP/2 resets a stream and keeps the connection: there the
 * hook stays (`Profiler.watchesConnections`).
 */
import type { FastifyRequest } from 'fastify';

const IN_FLIGHT = Symbol('vigil.inFlight');

/** The requests in flight on a connection: one, or a few when its client pipelines. */
interface Watched {
  [IN_FLIGHT]?: FastifyRequest[];
  readonly remoteAddress?: string | undefined;
  once(event: 'close', listener: () => void): unknown;
}

export class ConnectionWatch {
  /** One listener for every connection: it reads the requests of the socket it is called on. */
  private readonly closed: (this: Watched) => void;

  constructor(gone: (request: FastifyRequest) => void) {
    this.closed = function closed(this: Watched) {
      const inFlight = this[IN_FLIGHT];
      if (inFlight === undefined || inFlight.length === 0) return;
      // `gone` lets each one go (see unfollow): the list is read from a copy.
      for (const request of inFlight.slice()) gone(request);
    };
  }

  /**
   * Follows `request` until {@link unfollow}. A connection seen for the first time has its
   * peer's address read: Node keeps it once read, so that a report made after the client
   * left (or, in production, kept as it ends) still names its client.
   */
  follow(request: FastifyRequest): void {
    const socket = request.raw.socket as unknown as Watched | null;
    if (socket === null) return;
    const inFlight = socket[IN_FLIGHT];
    if (inFlight !== undefined) inFlight.push(request);
    else {
      socket[IN_FLIGHT] = [request];
      socket.once('close', this.closed);
      void socket.remoteAddress;
    }
  }

  unfollow(request: FastifyRequest): void {
    const inFlight = (request.raw.socket as unknown as Watched | null)?.[IN_FLIGHT];
    if (inFlight === undefined) return;
    // Nearly always the only one, or the first of a pipelined few.
    if (inFlight[0] === request) inFlight.shift();
    else {
      const at = inFlight.indexOf(request);
      if (at !== -1) inFlight.splice(at, 1);
    }
  }
}
