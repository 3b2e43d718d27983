/**
 * Outgoing HTTP calls, with no set-up: the diagnostics channels of Node's HTTP client (`http.client.*`)
 * and of the undici inside `fetch` (`undici:request:*`). A call is filed under the request whose code
 * made it; calls made outside a profiled request are not looked at. Its headers are kept as the
 * client holds them, and its response body is seen chunk by chunk as the client hands it on
 * (see `call-exchange.ts`): undici's `bodyChunkReceived` channel where it has one,
 * its request's `onData` otherwise; node:http's response `push`. No listener is added that would
 * change how the application reads the body.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SharedInstall } from '../../utils/shared-install.js';
import { newExchange, takeChunk, type CallExchange, type RawHeaders } from './call-exchange.js';
import {
  callerSite,
  callSite,
  currentActivity,
  fetchCallSite,
  type FoundSite,
  type OutgoingCall,
  type RequestActivity,
} from './request-activity.js';

interface Pending {
  activity: RequestActivity;
  call: OutgoingCall;
  exchange: CallExchange;
  started: number;
  /** undici published the body's chunks on its channel: its `onData` is not looked at. */
  chunksPublished: boolean;
}

/**
 * The caller's line, noted by the wrapped `fetch` for the create message that undici
 * publishes inside it: a stack taken there is a few frames deep, where one taken from the
 * channel walks through all of undici's.
 */
let fetchCaller: FoundSite | undefined;

/**
 * The application's lines of node:http requests, found when Node creates the request: it says
 * so synchronously in the caller (`http.client.request.created`, Node 22 and later), where
 * `http.client.request.start` comes a tick later, on no application frame. got makes its
 * request a tick after the application's call, and says where in its own channels: its
 * `create` message runs in the caller, and its `start` message follows Node's `created`
 * synchronously, which is how the two are paired.
 */
const createdSites = new WeakMap<object, FoundSite>();
/** The node:http request Node created last, until got's `start` message claims it. */
let lastCreated: ClientRequest | undefined;
/** The lines of got's requests, by got's request id, from its `create` message to its `start`. */
const gotSites = new Map<string, string | null>();
/** got requests created but not yet started, at most: their lines beyond are not kept. */
const GOT_PENDING_MAX = 1000;

/**
 * The calls under way, by the library's request object: the `create`/`start` message is published
 * synchronously in the caller, which finds the request; the later messages find the call here.
 */
const pending = new WeakMap<object, Pending>();

/** undici's request as its channels show it (structural: Node bundles its own undici). */
interface UndiciRequest {
  method?: string;
  origin?: string | URL;
  path?: string;
  body?: unknown;
  contentLength?: number | null;
  headers?: RawHeaders;
  onData?: (chunk: Buffer) => unknown;
}
interface UndiciResponse {
  statusCode?: number;
  headers?: Array<Buffer | string>;
}

function begin(
  key: object,
  method: string,
  url: string,
  requestSize: number | null,
  siteOf: (activity: RequestActivity) => FoundSite,
): void {
  const activity = currentActivity();
  if (activity === undefined) return;
  const started = performance.now();
  const { site, recalled } = siteOf(activity);
  const call = activity.addCall({
    method,
    url,
    start: activity.since(started),
    duration: null,
    status: null,
    requestSize,
    responseSize: null,
    error: null,
    site,
  });
  if (call === undefined) return;
  if (recalled) call.siteRecalled = true;
  const exchange = newExchange();
  call.exchange = exchange;
  pending.set(key, { activity, call, exchange, started, chunksPublished: false });
}

function answered(
  key: object,
  status: number | undefined,
  size: number | null,
  headers: { sent: RawHeaders | undefined; received: RawHeaders | undefined },
): Pending | undefined {
  const entry = pending.get(key);
  if (!entry) return undefined;
  entry.call.status = status ?? null;
  entry.call.responseSize = size;
  entry.call.duration = elapsed(entry);
  entry.exchange.requestHeaders = headers.sent;
  entry.exchange.responseHeaders = headers.received;
  return entry;
}

function ended(key: object): void {
  const entry = pending.get(key);
  if (!entry) return;
  pending.delete(key);
  entry.call.duration = elapsed(entry);
  const { exchange, call } = entry;
  exchange.complete = true;
  // What came is what was received; a HEAD's or a 304's Content-Length announced a body that never comes.
  if (exchange.received > 0 || call.responseSize === null) call.responseSize = exchange.received;
}

function failed(key: object, error: unknown, sent: RawHeaders | undefined): void {
  const entry = pending.get(key);
  if (!entry) return;
  pending.delete(key);
  entry.call.duration = elapsed(entry);
  entry.call.error = describe(error);
  entry.exchange.requestHeaders ??= sent;
}

/**
 * An undici without the `bodyChunkReceived` channel (Node 20's) publishes no chunk of a
 * response body: its request's `onData`, which the client calls with each chunk, is wrapped
 * on that one request, the chunk taken after undici had it (by then a channel that exists
 * has given it, and the wrapper leaves it).
 */
function watchUndiciBody(request: UndiciRequest): void {
  const entry = pending.get(request);
  const onData = request.onData;
  if (entry === undefined || typeof onData !== 'function') return;
  request.onData = function (this: unknown, chunk: Buffer) {
    const result = Reflect.apply(onData, this, [chunk]);
    if (!entry.chunksPublished) takeChunk(entry.exchange, chunk);
    return result;
  };
}

/**
 * node:http hands a response's chunks to the stream's `push`: wrapped on that one response,
 * so that the body is seen without a 'data' listener, which would set the stream flowing.
 */
function watchHttpBody(response: IncomingMessage, exchange: CallExchange): void {
  const push = response.push;
  response.push = function (this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding) {
    if (chunk !== null) takeChunk(exchange, chunk);
    return Reflect.apply(push, this, [chunk, encoding]) as boolean;
  };
}

function elapsed(entry: Pending): number {
  return Math.round((performance.now() - entry.started) * 1000) / 1000;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.startsWith(code)
    ? `${code}: ${error.message}`
    : `${error.name}: ${error.message}`;
}

function bodySize(body: unknown): number | null {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return null;
}

function contentLength(value: unknown): number | null {
  const length = Number(Array.isArray(value) ? value[0] : value);
  return value !== undefined && value !== null && Number.isSafeInteger(length) && length >= 0 ? length : null;
}

const CONTENT_LENGTH = 'content-length';

/** True when `name` (bytes or text) is `content-length` in any case, read without decoding it. */
function isContentLength(name: Buffer | string): boolean {
  if (name.length !== CONTENT_LENGTH.length) return false;
  if (typeof name === 'string') return name.toLowerCase() === CONTENT_LENGTH;
  for (let i = 0; i < name.length; i++) {
    const code = CONTENT_LENGTH.charCodeAt(i);
    const byte = name[i]!;
    // A letter in either case; the `-` as it is.
    if (byte !== code && !(code >= 0x61 && byte === code - 0x20)) return false;
  }
  return true;
}

/** A header value of decimal digits (spaces and tabs around them allowed), read from bytes or text; null otherwise. */
function decimalLength(value: Buffer | string): number | null {
  if (typeof value === 'string') return contentLength(value);
  let start = 0;
  let end = value.length;
  while (start < end && isBlank(value[start]!)) start++;
  while (end > start && isBlank(value[end - 1]!)) end--;
  if (start === end) return null;
  let length = 0;
  for (let i = start; i < end; i++) {
    const digit = value[i]! - 0x30;
    if (digit < 0 || digit > 9) return null;
    length = length * 10 + digit;
  }
  return Number.isSafeInteger(length) ? length : null;
}

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09;
}

/**
 * undici's headers are a flat list of names and values, as bytes: they are read as bytes, since
 * decoding a Buffer costs more than the rest of the call's messages together.
 */
export function undiciContentLength(headers: Array<Buffer | string> | undefined): number | null {
  if (!headers) return null;
  for (let i = 0; i + 1 < headers.length; i += 2)
    if (isContentLength(headers[i]!)) return decimalLength(headers[i + 1]!);
  return null;
}

const HANDLERS: Record<string, (message: unknown) => void> = {
  'undici:request:create': (message) => {
    const request = (message as { request: UndiciRequest }).request;
    const given = String(request.origin ?? '');
    const origin = given.endsWith('/') ? given.slice(0, -1) : given;
    begin(
      request,
      request.method ?? 'GET',
      `${origin}${request.path ?? ''}`,
      request.contentLength ?? bodySize(request.body),
      (activity) => fetchCaller ?? activity.siteFor('fetch', origin, fetchCallSite),
    );
    watchUndiciBody(request);
  },
  'undici:request:headers': (message) => {
    const { request, response } = message as { request: UndiciRequest; response: UndiciResponse };
    answered(request, response.statusCode, undiciContentLength(response.headers), {
      sent: request.headers,
      received: response.headers,
    });
  },
  'undici:request:bodyChunkReceived': (message) => {
    const { request, chunk } = message as { request: object; chunk: unknown };
    const entry = pending.get(request);
    if (entry === undefined) return;
    entry.chunksPublished = true;
    takeChunk(entry.exchange, chunk);
  },
  'undici:request:trailers': (message) => ended((message as { request: object }).request),
  'undici:request:error': (message) => {
    const { request, error } = message as { request: UndiciRequest; error: unknown };
    failed(request, error, request.headers);
  },
  'http.client.request.created': (message) => {
    const request = (message as { request: ClientRequest }).request;
    lastCreated = request;
    const activity = currentActivity();
    if (activity !== undefined) createdSites.set(request, activity.siteFor('http', originOf(request), callSite));
  },
  'got:request:create': (message) => {
    const { requestId } = message as { requestId?: unknown };
    if (typeof requestId !== 'string' || currentActivity() === undefined || gotSites.size >= GOT_PENDING_MAX) return;
    gotSites.set(requestId, callSite());
  },
  'got:request:start': (message) => {
    const { requestId, url } = message as { requestId?: unknown; url?: unknown };
    const created = lastCreated;
    lastCreated = undefined;
    if (typeof requestId !== 'string' || !gotSites.has(requestId)) return;
    const site = gotSites.get(requestId)!;
    gotSites.delete(requestId);
    // Only the request made for this URL: through got's cache, Node's last one may be another's.
    if (created !== undefined && site !== null && url === `${originOf(created)}${created.path}`)
      createdSites.set(created, { site, recalled: false });
  },
  'got:request:error': (message) => {
    const { requestId } = message as { requestId?: unknown };
    if (typeof requestId === 'string') gotSites.delete(requestId);
  },
  'http.client.request.start': (message) => {
    const request = (message as { request: ClientRequest }).request;
    const origin = originOf(request);
    begin(
      request,
      request.method,
      `${origin}${request.path}`,
      contentLength(request.getHeader('content-length')),
      (activity) => createdSites.get(request) ?? activity.siteFor('http', origin, callSite),
    );
  },
  'http.client.response.finish': (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (!pending.has(request)) return;
    const entry = answered(request, response.statusCode, contentLength(response.headers['content-length']), {
      sent: request.getHeaders(),
      received: response.headers,
    });
    if (entry !== undefined) watchHttpBody(response, entry.exchange);
    // The message comes with the headers: the call ends with the body, if the application reads it.
    response.once('end', () => ended(request));
  },
  'http.client.request.error': (message) => {
    const { request, error } = message as { request: ClientRequest; error: unknown };
    failed(request, error, request.getHeaders());
  },
};

function originOf(request: ClientRequest): string {
  return `${request.protocol}//${String(request.getHeader('host') ?? request.host)}`;
}

type Fetch = typeof globalThis.fetch;

/** `https://host:port` of what `fetch` was given (a string, a URL, a Request): what the call is, for its remembered line. */
function fetchOrigin(input: unknown): string {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as { url?: unknown })?.url;
  if (typeof url !== 'string') return '';
  const authority = url.indexOf('//');
  const end = authority === -1 ? -1 : url.indexOf('/', authority + 2);
  return end === -1 ? url : url.slice(0, end);
}

/** The global `fetch` as found, and the wrapper put in its place, while the tap is held. */
let wrapping: { original: Fetch; wrapper: Fetch } | undefined;

function wrapFetch(): void {
  const original = globalThis.fetch;
  if (typeof original !== 'function') return;
  const wrapper = function fetch(this: unknown, ...args: Parameters<Fetch>) {
    // Let go, yet still called by whoever wrapped it in turn: a plain pass-through.
    const activity = wrapping?.wrapper === wrapper ? currentActivity() : undefined;
    if (activity === undefined) return Reflect.apply(original, this, args);
    const outer = fetchCaller;
    fetchCaller = activity.siteFor('fetch', fetchOrigin(args[0]), () => callerSite(wrapper));
    try {
      return Reflect.apply(original, this, args);
    } finally {
      fetchCaller = outer;
    }
  } as Fetch;
  Object.defineProperty(wrapper, 'length', { value: original.length });
  wrapping = { original, wrapper };
  globalThis.fetch = wrapper;
}

function unwrapFetch(): void {
  // Wrapped again since by someone else: theirs stays, and ours passes calls through.
  if (wrapping !== undefined && globalThis.fetch === wrapping.wrapper) globalThis.fetch = wrapping.original;
  wrapping = undefined;
}

const httpClientTap = new SharedInstall(
  () => {
    for (const [name, handler] of Object.entries(HANDLERS)) diagnosticsChannel.subscribe(name, handler);
    wrapFetch();
  },
  () => {
    for (const [name, handler] of Object.entries(HANDLERS)) diagnosticsChannel.unsubscribe(name, handler);
    unwrapFetch();
    gotSites.clear();
    lastCreated = undefined;
  },
);

/**
 * Subscribes the channels and wraps `fetch` for one more holder; the returned function lets go
 * (once). A plugin is a guest in the process: both are held only while a debug instance is open.
 */
export function holdHttpClientTap(): () => void {
  return httpClientTap.hold();
}
