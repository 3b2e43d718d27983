/**
 * Closes a connection whose request body the kernel refused, without losing the answer (Apache's
 * lingering close): after the response, half-close, discard what the client still sends for a bounded
 * time and amount, then destroy. Closing at once would send RST over the unread bytes, and a client
 * still writing its body could lose the response.
 */
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a refused client may go on sending before the connection is cut. */
const LINGER_MS = 2000;
/** How much of a refused body is read and thrown away before the connection is cut. */
const LINGER_BYTES = 64 * 1024 * 1024;

const lingering = new WeakSet<Socket>();

/** Marks the response `Connection: close`; Node's close of the socket then lingers. */
export function closeAfterResponse(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  const socket = request.raw.socket as Socket | null;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  // Read now, while the socket has its handle: Node caches it, and the report written after
  // the response still knows the client's address.
  void socket.remoteAddress;
  // Node's HTTP server ends a `Connection: close` response with socket.destroySoon().
  socket.destroySoon = () => linger(socket, request.raw);
}

function linger(socket: Socket, body: NodeJS.ReadableStream & { removeAllListeners(event: string): unknown }): void {
  // Nobody wants the rest of the body: let it flow to nowhere so the socket keeps reading.
  body.unpipe();
  body.removeAllListeners('data');
  body.resume();
  const startBytes = socket.bytesRead;
  const done = () => {
    clearInterval(watch);
    clearTimeout(deadline);
    socket.destroy();
  };
  const deadline = setTimeout(done, LINGER_MS);
  const watch = setInterval(() => {
    if (socket.bytesRead - startBytes > LINGER_BYTES) done();
  }, 50);
  socket.once('end', done); // the client finished or gave up: nothing left to lose
  socket.once('close', done);
  socket.end();
}
