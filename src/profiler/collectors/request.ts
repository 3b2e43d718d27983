/** The request section: method, URL, query, headers (redacted), body size, client, protocol, TLS. */
import type { TLSSocket } from 'node:tls';
import { requestTarget, requestUrlWithQuery } from '../../server/request-url.js';
import { queryParameters } from '../redact.js';
import type { Collector } from '../request-profile.js';

export interface RequestSection {
  method: string;
  url: string;
  query: Array<{ name: string; value: string }>;
  headers: Record<string, string | string[]>;
  bodySize: number | null;
  bodyRead: boolean;
  ip: string;
  remoteAddress: string | null;
  remotePort: number | null;
  protocol: string;
  tls: { version: string | null; cipher: string | null; servername: string | null } | null;
}

export const requestCollector: Collector = {
  name: 'request',
  collect({ request, redactor }): RequestSection {
    const socket = request.raw.socket as Partial<TLSSocket> | null;
    const encrypted = socket?.encrypted === true;
    const cipher = encrypted ? socket.getCipher?.() : undefined;
    const declaredLength = request.headers['content-length'];
    return {
      method: request.method,
      url: redactor.url(requestUrlWithQuery(request)),
      query: queryParameters(requestTarget(request).query.slice(1), redactor),
      headers: redactor.headers(request.headers),
      // Declared size; a chunked body has none, and an unrouted request's body is never read.
      bodySize: declaredLength === undefined ? null : Number(declaredLength),
      bodyRead: request.raw.complete,
      ip: request.ip,
      remoteAddress: socket?.remoteAddress ?? null,
      remotePort: socket?.remotePort ?? null,
      protocol: `HTTP/${request.raw.httpVersion}`,
      tls: encrypted ? { version: socket.getProtocol?.() ?? null, cipher: cipher?.name ?? null, servername: (socket as { servername?: string | false }).servername || null } : null,
    };
  },
};
