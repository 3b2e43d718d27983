/**
 * The request section: method, URL, query, headers, cookies, the parsed body and the
 * uploaded files (each redacted), body size, client, protocol, TLS.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { requestTarget, requestUrlWithQuery } from '../../http/request-url.js';
import { queryParameters } from '../redaction/redact.js';
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorContext } from '../model/request-profile.js';
import type { CollectorSetup } from './collector-setup.js';
import { parseCookies } from './cookies.js';
import { bodyView, uploadedFilesView } from './request-body.js';
import { requestPanel, requestText, type RequestSection, type TlsInfo } from './request-panel.js';

export type { RequestSection } from './request-panel.js';

interface ConnectionInfo {
  remoteAddress: string | null;
  remotePort: number | null;
  tls: TlsInfo | null;
}

// Read once per connection, at arrival: a closed socket no longer knows its peer or TLS session.
// Production reads it when a report is kept: the TLS session of a client gone by then is not known.
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

export const requestCollector = defineCollector<RequestSection, CollectorSetup>({
  name: 'request',
  panel: requestPanel,
  textTitle: (section) => `Request (${section.protocol}${section.tls ? `, ${section.tls.version}` : ''})`,
  text: requestText,
  textLast: true,
  create: () => ({
    startsLate: true,
    start({ request }) {
      connectionOf(request.raw.socket);
    },
    collect: collectRequest,
  }),
});

function collectRequest({ request, profile, redactor }: CollectorContext): RequestSection {
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
}
