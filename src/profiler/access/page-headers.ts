/**
 * The headers of the profiler's own answers, and their last word: an application's plugins
 * (`@fastify/cors`, `@fastify/helmet`) set headers on every path from hooks that run after
 * vigil's, so the head of a profiler answer is settled as it is written, whoever set what.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Sent with every profiler page, errors included. The pages need no script at all, and
 * their only styles are inline `<style>` blocks (the error pages' too). No other origin may
 * embed or read them.
 */
const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The pages that run a script of their own (the live list): its nonce, by response. Their policy
 * admits that one script, and requests to the profiler's own origin (`connect-src 'self'`).
 */
const scriptNonces = new WeakMap<ServerResponse, string>();

/** Admits, on this response only, the one `<script nonce>` its page carries. */
export function admitPageScript(response: ServerResponse, nonce: string): void {
  scriptNonces.set(response, nonce);
}

function securityHeaders(response: ServerResponse): Readonly<Record<string, string>> {
  const nonce = scriptNonces.get(response);
  if (nonce === undefined) return PAGE_SECURITY_HEADERS;
  const policy = `${PAGE_SECURITY_HEADERS['content-security-policy']}; script-src 'nonce-${nonce}'; connect-src 'self'`;
  return { ...PAGE_SECURITY_HEADERS, 'content-security-policy': policy };
}

/** Every `Access-Control-*` header: the profiler grants no origin anything, whatever a plugin decided. */
const CROSS_ORIGIN_GRANT = /^access-control-/i;

/**
 * Sets the page headers on `response` now, and again when its head is written: then every
 * `Access-Control-*` header is removed and the page headers replace any other value. The
 * wrap is this response's own, so nothing process-wide changes.
 */
export function settlePageHeaders(response: ServerResponse): void {
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.setHeader(name, value);
  const writeHead = response.writeHead;
  response.writeHead = function writePageHead(this: ServerResponse, status: number, ...rest: unknown[]) {
    const headers = securityHeaders(this);
    for (const name of this.getHeaderNames()) if (CROSS_ORIGIN_GRANT.test(name)) this.removeHeader(name);
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
    // writeHead(status, [message], [headers]): headers given here win over those set before.
    const last = rest.length - 1;
    if (last >= 0 && typeof rest[last] === 'object' && rest[last] !== null) rest[last] = settled(rest[last], headers);
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

/** A header the profiler's answer does not keep as given: a cross-origin grant, or one of its own. */
function overruled(name: string): boolean {
  return CROSS_ORIGIN_GRANT.test(name) || Object.hasOwn(PAGE_SECURITY_HEADERS, name.toLowerCase());
}

/** Headers given to writeHead, as an object or as a flat `[name, value, ...]` list, settled. */
function settled(headers: unknown, security: Readonly<Record<string, string>>): unknown {
  if (Array.isArray(headers)) {
    const kept: unknown[] = [];
    for (let index = 0; index + 1 < headers.length; index += 2)
      if (!overruled(String(headers[index]))) kept.push(headers[index], headers[index + 1]);
    return [...kept, ...Object.entries(security).flat()];
  }
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) if (!overruled(name)) kept[name] = value;
  return { ...kept, ...security };
}
