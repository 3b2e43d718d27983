/**
 * The request section as stored, its panel (what the client sent, its parsed body, cookies
 * and uploaded files included) and its text: protocol and headers.
 */
import { html, type SafeHtml } from '../../utils/html.js';
import type { CookieEntry } from './cookies.js';
import type { BodyView, FileView } from './request-body.js';
import { formatBytes, keyValueTable } from '../views/layout.js';
import { renderValue } from '../views/generic-panel.js';
import { headerLines, headerTable } from '../views/headers.js';
import { definePanel } from '../model/panel.js';

export interface TlsInfo {
  version: string | null;
  cipher: string | null;
  /** The host name the client asked for in the handshake (SNI). */
  servername: string | null;
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

export const requestPanel = definePanel<RequestSection>({
  ownHeading: true,
  title: 'Request',
  badge: (section) => section.method,
  render(section) {
    const client =
      section.remoteAddress && section.remoteAddress !== section.ip
        ? `${section.ip} (via ${section.remoteAddress})`
        : section.ip;
    const tls = section.tls
      ? [section.tls.version, section.tls.cipher, section.tls.servername && `SNI ${section.tls.servername}`]
          .filter(Boolean)
          .join(', ')
      : 'none (plain HTTP)';
    return html`<h2>Request</h2>
${keyValueTable([
  ['Method', section.method],
  ['URL', html`<code>${section.url}</code>`],
  ['Protocol', section.protocol],
  ['Client', `${client}${section.remotePort ? ` port ${section.remotePort}` : ''}`],
  ['TLS', tls],
  [
    'Body',
    section.bodySize === null
      ? 'none declared'
      : `${formatBytes(section.bodySize)} declared, ${section.bodyRead ? 'read' : 'not read'}`,
  ],
])}
<h3>Query parameters</h3>
${keyValueTable(
  section.query.map(({ name, value }) => [name, html`<code>${value}</code>`] as const),
  'No query string',
)}
${renderBody(section)}${renderCookies(section)}${renderFiles(section)}
<h3>Headers</h3>
${headerTable(section.headers)}`;
  },
});

/** The command line's lines: the headers as sent. */
export function requestText(section: RequestSection): string[] {
  return headerLines(section.headers);
}

// Reports written before bodies, cookies and files were kept have none of these fields: nothing is shown for them.

function renderBody({ body }: RequestSection): SafeHtml | string {
  if (body === undefined) return '';
  if (body === null)
    return html`<h3>Body</h3><p class="muted">No parsed body (none was sent, it was not read, or it is not JSON, a form or text).</p>\n`;
  const value = typeof body.value === 'string' ? html`<pre class="block">${body.value}</pre>` : renderValue(body.value);
  return html`<h3>Body (${body.type})</h3>${value}\n`;
}

function renderCookies({ cookies }: RequestSection): SafeHtml | string {
  if (cookies === undefined) return '';
  return html`<h3>Cookies</h3>\n${keyValueTable(
    cookies.map(({ name, value }) => [name, html`<code>${value}</code>`] as const),
    'No cookies',
    'cookies',
  )}\n`;
}

function renderFiles({ files }: RequestSection): SafeHtml | string {
  if (files === undefined || files.length === 0) return '';
  return html`<h3>Uploaded files</h3>
<table id="uploaded-files"><thead><tr><th>Name</th><th>Field</th><th>Type</th><th>Size</th></tr></thead><tbody>${files.map(
    (file) =>
      html`<tr><td>${file.filename}</td><td>${file.field}</td><td>${file.type}</td><td>${formatBytes(file.size)}</td></tr>`,
  )}</tbody></table>\n`;
}
