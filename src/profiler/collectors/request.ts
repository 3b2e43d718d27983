/**
 * The request section: method, URL, query, headers, cookies, the parsed body and the
 * uploaded files (each redacted), body size, client, protocol, TLS.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { requestTarget, requestUrlWithQuery } from '../../http/request-url.js';
import { queryParameters } from '../redaction/redact.js';
import type { Collector } from '../model/request-profile.js';
import { parseCookies, type CookieEntry } from './cookies.js';
import { bodyView, uploadedFilesView, type BodyView, type FileView } from './request-body.js';

interface TlsInfo {
  version: string | null;
  cipher: string | null;
  /** The host name the client asked for in the handshake (SNI). */
  servername: string | null;
}

interface ConnectionInfo {
  remoteAddress: string | null;
  remotePort: number | null;
  tls: TlsInfo | null;
}

export interface RequestSection {
  method: string;
  url: string;
  query: Array<{ name: string; value: string }>;
  headers: Record<string, string | string[]>;
  bodySize: number | null;
  bodyRead: boolean;
  /** The parsed body, redacted and bounded; null when none was parsed. Absent in older reports, as are cookies and files. */
  body?: BodyView | null;
  cookies?: CookieEntry[];
  files?: FileView[];
  /** The client: the socket's peer, or the forwarded address behind a trusted proxy. */
  ip: string;
  remoteAddress: string | null;
  remotePort: number | null;
  protocol: string;
  tls: TlsInfo | null;
}

// Read once per connection, at arrival: a closed socket no longer knows its peer or TLS session.
const connections = new WeakMap<object, ConnectionInfo>();

function connectionOf(connection: Socket): ConnectionInfo {
  let info = connections.get(connection);
  if (info === undefined) {
    const socket = connection as Partial<TLSSocket> & { servername?: string | false };
    info = {
      remoteAddress: socket.remoteAddress ?? null,
      remotePort: socket.remotePort ?? null,
      tls: socket.encrypted
        ? {
            version: socket.getProtocol?.() ?? null,
            cipher: socket.getCipher?.()?.name ?? null,
            servername: socket.servername || null,
          }
        : null,
    };
    connections.set(connection, info);
  }
  return info;
}

export const requestCollector: Collector = {
  name: 'request',
  start({ request }) {
    connectionOf(request.raw.socket);
  },
  collect({ request, profile, redactor }): RequestSection {
    const declaredLength = request.headers['content-length'];
    return {
      method: request.method,
      // Secrets inside the URL and headers' text are redacted when the report is encoded.
      url: requestUrlWithQuery(request),
      query: queryParameters(requestTarget(request).query.slice(1), redactor),
      headers: redactor.headers(request.headers),
      // Declared size; a chunked body has none, and an unrouted request's body is never read.
      bodySize: declaredLength === undefined ? null : Number(declaredLength),
      bodyRead: request.raw.complete,
      body: bodyView(request.body, request.headers['content-type'], redactor),
      cookies: parseCookies(request.headers.cookie, redactor),
      files: uploadedFilesView(request.vigil?.uploadedFiles ?? null),
      ip: profile.ip,
      ...connectionOf(request.raw.socket),
      protocol: `HTTP/${request.raw.httpVersion}`,
    };
  },
};
