/** The request section: method, URL, query, headers (redacted), body size, client, protocol, TLS. */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { requestUrlWithQuery } from '../../server/request-url.js';
import type { Collector } from '../request-profile.js';

interface TlsInfo {
  version: string | null;
  cipher: string | null;
}

// Read once per connection, at arrival: a closed socket no longer knows its TLS session.
const tlsBySocket = new WeakMap<object, TlsInfo | null>();

function tlsOf(connection: Socket): TlsInfo | null {
  const socket = connection as Partial<TLSSocket>;
  let info = tlsBySocket.get(socket);
  if (info === undefined) {
    info = socket.encrypted ? { version: socket.getProtocol?.() ?? null, cipher: socket.getCipher?.()?.name ?? null } : null;
    tlsBySocket.set(socket, info);
  }
  return info;
}

export const requestCollector: Collector = {
  name: 'request',
  start({ request }) {
    tlsOf(request.raw.socket);
  },
  collect({ request, profile, redactor }) {
    const declaredLength = request.headers['content-length'];
    return {
      method: request.method,
      url: redactor.url(requestUrlWithQuery(request)),
      query: redactor.url(request.raw.url ?? '').split('?')[1] ?? '',
      headers: redactor.headers(request.headers),
      bodySize: declaredLength === undefined ? null : Number(declaredLength),
      bodyRead: request.raw.complete,
      ip: profile.ip,
      protocol: `HTTP/${request.raw.httpVersion}`,
      tls: tlsOf(request.raw.socket),
    };
  },
};
