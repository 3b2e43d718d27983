/**
 * Hands to the kernel the requests Node's HTTP server would otherwise settle on its own:
 * a CONNECT (destroyed without a word when nobody listens for it) and an Expect other
 * than 100-continue (a bare 417), so that they are answered through the error pipeline.
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a CONNECT's answer may take to leave before its connection is cut; the client is never waited on. */
const CLOSE_GRACE_MS = 1000;

export function handOffToKernel(server: Server): void {
  // The kernel sees the Expect header and answers 417 itself (refusedHead).
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    server.emit('request', request, response),
  );
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    // Node has let go of the connection: its parser and error listener are gone.
    socket.on('error', () => socket.destroy());
    const response = new ServerResponse(request);
    // The bytes after the CONNECT head are a tunnel's, not requests: one answer, then close.
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => {
      response.detachSocket(socket as Socket);
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    });
    server.emit('request', request, response);
  });
}
