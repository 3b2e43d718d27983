/** The request section: method, URL, query, headers (redacted), body size, client, protocol, TLS. */
import type { TLSSocket } from 'node:tls';
import { requestUrlWithQuery } from '../../server/request-url.js';
import type { Collector } from '../request-profile.js';

export const requestCollector: Collector = {
  name: 'request',
  collect({ request, redactor }) {
    const socket = request.raw.socket as Partial<TLSSocket>;
    const cipher = socket.encrypted ? socket.getCipher?.() : undefined;
    const declaredLength = request.headers['content-length'];
    return {
      method: request.method,
      url: redactor.url(requestUrlWithQuery(request)),
      query: redactor.url(request.raw.url ?? '').split('?')[1] ?? '',
      headers: redactor.headers(request.headers),
      bodySize: declaredLength === undefined ? null : Number(declaredLength),
      bodyRead: request.raw.complete,
      ip: request.ip,
      remoteAddress: request.raw.socket.remoteAddress ?? null,
      protocol: `HTTP/${request.raw.httpVersion}`,
      tls: socket.encrypted ? { version: socket.getProtocol?.() ?? null, cipher: cipher?.name ?? null } : null,
    };
  },
};
