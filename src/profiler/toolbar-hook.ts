/**
 * Puts the debug toolbar (`toolbar.ts`) into the HTML pages the application's routes
 * answer, in debug mode. Never into the kernel's own answers (error pages, the profiler),
 * a body that is not HTML, a compressed or streamed body, a page without `</body>`, or a page
 * whose policy the toolbar cannot be admitted by (one in a `<meta>` element).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import '../errors/error-handler.js';
import { admitInlineStyleIn } from '../http/content-security-policy.js';
import { routeOf } from '../routing/route-table.js';
import type { Collector, ToolbarContext } from './model/request-profile.js';
import {
  hasPolicyInMarkup,
  insertBeforeBodyEnd,
  insertBeforeHeadEnd,
  renderRecorder,
  renderToolbar,
  type ToolbarItem,
} from './pages/toolbar.js';

/** Larger pages are left as they are: the toolbar is not worth a copy of megabytes. */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * The toolbar's onSend, after the profiler's (which keeps the body without the bar).
 * `collectors`: the profiler's, whose entries the bar shows in their order. `admits`: whether
 * the request's client may open the profiler; no one else sees the bar.
 */
export function toolbarHook(
  collectors: readonly Collector[],
  admits: (request: FastifyRequest) => boolean,
): onSendHookHandler {
  return (request, reply, payload, done) => {
    const page = pageOf(request, reply, payload, admits);
    if (page === undefined || hasPolicyInMarkup(page)) return done(null, payload);
    const profile = request.vigil!.profile!;
    const nonce = randomBytes(16).toString('base64');
    const link = reply.getHeader('x-debug-token-link');
    const entries = collectors.flatMap((collector) => entriesOf(collector, { request, reply, profile }));
    const bar = renderToolbar(
      { entries, token: profile.token, link: typeof link === 'string' ? link : `/_profiler/${profile.token}` },
      nonce,
    );
    const withBar = insertBeforeBodyEnd(page, bar);
    if (withBar === undefined) return done(null, payload);
    // The recorder goes in the head too, to see the calls of the page's inline scripts in <body>.
    const withRecorder = insertBeforeHeadEnd(withBar, renderRecorder(nonce));
    admitInlineStyleIn(reply, `'nonce-${nonce}'`);
    admitInlineStyleIn(reply, `'nonce-${nonce}'`, 'script');
    if (reply.hasHeader('content-length')) reply.header('content-length', Buffer.byteLength(withRecorder));
    done(null, withRecorder);
  };
}

/** The page as text when the toolbar belongs in it, else undefined. */
function pageOf(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  admits: (request: FastifyRequest) => boolean,
): string | undefined {
  // Profiled (debug mode, not a profiler page), answered by one of the application's routes
  // (not the pipeline's error page), to a client the profiler admits.
  if (!request.vigil?.profile || request.is404 || request.vigil.answeredByPipeline || !admits(request))
    return undefined;
  const routeName = routeOf(request)?.name;
  if (routeName === undefined || routeName.startsWith('_profiler')) return undefined;
  const type = String(reply.getHeader('content-type') ?? '');
  // The bar is UTF-8 text: a page in another charset is left as it is.
  if (!/^text\/html\b/i.test(type) || !/^[^;]*(;\s*charset="?utf-8"?\s*)?$/i.test(type.trim())) return undefined;
  if (reply.hasHeader('content-encoding') || request.method === 'HEAD') return undefined;
  if (typeof payload === 'string') return payload.length <= MAX_PAGE_BYTES ? payload : undefined;
  if (Buffer.isBuffer(payload)) return payload.length <= MAX_PAGE_BYTES ? payload.toString('utf8') : undefined;
  return undefined;
}

/** A collector's entries, each linked to its panel; a broken one costs its own entries, never the page. */
function entriesOf(collector: Collector, context: ToolbarContext): readonly ToolbarItem[] {
  try {
    const panel = { name: collector.name, title: collector.panel?.title ?? collector.name };
    return (collector.toolbar?.(context) ?? []).map((entry) => ({ ...entry, panel }));
  } catch {
    return [];
  }
}
