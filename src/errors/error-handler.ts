/**
 * The one error pipeline: whatever raised it (routing, limits, a handler, a malformed
 * request), an error is described, negotiated against `Accept` and rendered here, with
 * `Cache-Control: no-cache, private`, `Vary: Accept` and, in debug mode, the x-debug-* headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { exceptionHeaders } from '../debug/exception-headers.js';
import { framesOf, raiseSiteIn } from '../debug/stack-trace.js';
import { admitInlineStyleIn } from '../http/content-security-policy.js';
import { httpDate } from '../http/http-date.js';
import { requestUrlWithQuery } from '../http/request-url.js';
import type { EditorLinkFormat } from './editor-link.js';
import { relatedErrors } from './error-chain.js';
import type { ErrorView } from './error-view.js';
import { debugAidsOf, describeError, reasonPhrase } from './http-errors.js';
import { negotiateErrorFormat, type ErrorFormat } from './negotiate.js';
import { DebugPageTemplates } from './page-template.js';
import { PAGE_STYLE_SOURCE, renderDebugHtml, renderProductionHtml } from './render-html.js';
import { renderProblemJson, renderProblemXml } from './render-problem.js';
import { renderText } from './render-text.js';

const CONTENT_TYPES: Record<ErrorFormat, string> = {
  html: 'text/html; charset=UTF-8',
  json: 'application/problem+json',
  xml: 'application/problem+xml',
  text: 'text/plain; charset=UTF-8',
};

interface ErrorPipelineOptions {
  debug: boolean;
  /**
   * Debug mode: whether this request's answer may show debug output (its client may open the
   * profiler); the others get the production rendering. Without it, every answer may.
   */
  debugFor?: ((request: FastifyRequest) => boolean) | undefined;
  /**
   * The token of the report kept for the request, which a 5xx's log line names (`report`), so
   * that whoever reads the logs can open it; in production, asking may decide that it is kept.
   */
  reportToken?: ((request: FastifyRequest) => string | undefined) | undefined;
  /** VIGIL_IDE: debug pages link the project's files to this editor. */
  editor?: EditorLinkFormat | undefined;
  /** The format of a client that names none (no `Accept`, `*\/*`): HTML by default, JSON for an API. */
  defaultFormat?: 'html' | 'json' | undefined;
  /** `fastify`: production JSON in Fastify's shape, `{statusCode, error, message}`, instead of problem+json. */
  jsonShape?: 'problem' | 'fastify' | undefined;
}

export type ErrorResponder = (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => void;

declare module '../http/request-state.js' {
  interface RequestState {
    /** 6-hex token of this request's report (set by the profiler); absent outside debug mode and for its pages. */
    token?: string | null;
    /** The pipeline rendered the answer (an error page, not the application's): the toolbar stays off it. */
    answeredByPipeline?: boolean;
  }
}

export function createErrorResponder({
  debug: debugMode,
  editor,
  debugFor,
  reportToken,
  defaultFormat = 'html',
  jsonShape = 'problem',
}: ErrorPipelineOptions): ErrorResponder {
  const templates = new DebugPageTemplates({ editor });
  return function respondWithError(thrown, request, reply) {
    const debug = debugMode && (debugFor === undefined || debugFor(request));
    const fastifyShape = !debug && jsonShape === 'fastify';
    const described = describeError(thrown);
    if (described.status >= 500) logError(request, described.error, described.message, reportToken?.(request));
    if (reply.sent || reply.raw.headersSent) {
      // Too late for an error page: the client has a partial answer, so end it visibly.
      reply.raw.destroy(described.error);
      return;
    }

    if (request.vigil) request.vigil.answeredByPipeline = true;
    const frames = debug ? framesOf(described.error) : [];
    const aids = debug ? debugAidsOf(described.error) : undefined;
    const token = request.vigil?.token ?? undefined;
    const view: ErrorView = {
      status: described.status,
      title: reasonPhrase(described.status),
      message: described.message,
      className: described.className,
      code: described.code,
      method: request.method,
      url: debug ? requestUrlWithQuery(request) : '',
      frames,
      site: raiseSiteIn(frames),
      raisedBy: aids?.raisedBy,
      hints: aids?.hints,
      related: debug ? relatedErrors(described.error, frames) : undefined,
      token,
      // The link the response already carries, built once when the token was issued.
      reportUrl: token ? (reply.getHeader('x-debug-token-link') as string | undefined) : undefined,
    };
    const format = negotiateErrorFormat(request.headers.accept, defaultFormat);

    // A header Node refuses to write (set by a handler, or carried by the error) would make
    // this answer fail too, and Fastify would send its own: the answer goes without it.
    const set = reply.getHeaders();
    for (const name in set) {
      if (!Object.hasOwn(set, name) || sendable(name, set[name])) continue;
      reply.removeHeader(name);
      warnUnsendable(request, name);
    }
    // A failed writeHead leaves its reason phrase ("OK") behind; Node picks the status's own.
    reply.raw.statusMessage = '';
    reply.code(view.status);
    for (const name in described.headers) {
      if (!Object.hasOwn(described.headers, name)) continue;
      const value = described.headers[name]!;
      if (sendable(name, value)) reply.header(name, value);
      else warnUnsendable(request, name);
    }
    reply.header('content-type', fastifyShape && format === 'json' ? FASTIFY_JSON : CONTENT_TYPES[format]);
    reply.header('cache-control', 'no-cache, private');
    // Lower-case like the rest: in production the kernel's hooks leave the date to Node.
    if (!reply.hasHeader('date')) reply.header('date', httpDate());
    // The application's policy (helmet's, set before the handler ran) admits the page's style.
    if (format === 'html') admitInlineStyleIn(reply, PAGE_STYLE_SOURCE);
    const vary = reply.getHeader('vary');
    reply.header('vary', vary === undefined ? 'Accept' : `${String(vary)}, Accept`);
    if (debug) reply.headers(exceptionHeaders(view.message, view.site));
    // An unread request body (an unrouted upload) is discarded by Node after this answer.
    if (!debug)
      return void reply.send(fastifyShape && format === 'json' ? fastifyBody(view) : productionBody(format, view));
    // A throw path met before (the kernel's 404 and 405 above all) has its page as a template:
    // no page string is built, nor flattened twice on its way out (Content-Length, the write).
    const page = format === 'html' ? templates.render(view) : undefined;
    reply.send(page ?? asPayload(format, render(format, view, true, editor)));
  };
}

/** The logger reads the error's properties (its `cause` among them): one that throws must not take the answer down. */
function logError(request: FastifyRequest, error: Error, message: string, report: string | undefined): void {
  try {
    request.log.error(report === undefined ? { err: error } : { err: error, report }, message);
  } catch {
    request.log.error(
      report === undefined ? {} : { report },
      `${message} (the error's details could not be logged: reading them threw)`,
    );
  }
}

function sendable(name: string, value: unknown): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value as string);
    return true;
  } catch {
    return false;
  }
}

function warnUnsendable(request: FastifyRequest, name: string): void {
  request.log.warn(`the response header "${name}" has a value Node cannot send; the error response goes without it`);
}

/** Fastify appends a charset to a *json content type sent with a string: a Buffer keeps it exact. */
function asPayload(format: ErrorFormat, body: string): string | Buffer {
  return format === 'json' ? Buffer.from(body) : body;
}

const FASTIFY_JSON = 'application/json; charset=utf-8';
const fastifyBodies = new Map<number, Buffer>();

/** Fastify's own error shape, with the production rule: the status's reason, no detail. */
function fastifyBody(view: ErrorView): Buffer {
  let body = fastifyBodies.get(view.status);
  if (body === undefined) {
    body = Buffer.from(JSON.stringify({ statusCode: view.status, error: view.title, message: view.title }));
    fastifyBodies.set(view.status, body);
  }
  return body;
}

const productionBodies = new Map<string, Buffer>();

/** Without debug a body depends on format and status only: render each pair once. */
function productionBody(format: ErrorFormat, view: ErrorView): Buffer {
  const key = `${format}${view.status}`;
  let body = productionBodies.get(key);
  if (body === undefined) {
    body = Buffer.from(render(format, view, false));
    productionBodies.set(key, body);
  }
  return body;
}

function render(format: ErrorFormat, view: ErrorView, debug: boolean, editor?: EditorLinkFormat): string {
  switch (format) {
    case 'json':
      return renderProblemJson(view, debug);
    case 'xml':
      return renderProblemXml(view, debug);
    case 'text':
      return renderText(view, debug);
    default:
      return debug ? renderDebugHtml(view, { editor }) : renderProductionHtml(view);
  }
}
