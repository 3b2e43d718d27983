/**
 * The kernel's lifecycle: every hook it adds, at every stage, in one table. A request meets
 * the stages in this order (as Fastify's docs/Reference/Lifecycle.md draws them):
 *
 *   Incoming request
 *     └─▶ Routing
 *          └─▶ onRequest
 *               └─▶ preParsing
 *                    └─▶ Parsing
 *                         └─▶ preValidation
 *                              └─▶ Validation
 *                                   └─▶ preHandler
 *                                        └─▶ Handler
 *                                             └─▶ preSerialization
 *                                                  └─▶ onSend
 *                                                       └─▶ Outgoing response
 *                                                            └─▶ onResponse
 *
 * An error raised on the way goes to onError, then on to onSend and onResponse; a client
 * gone before its response gets onRequestAbort instead of onResponse. The application's
 * own stages: onRoute (each route added), onReady, onListen, onClose.
 *
 * Fastify runs the hooks of one stage in the order they were added, and the table is that
 * order (Symfony gives its listeners priorities; here the position is the priority); onClose
 * alone runs last added first. Each entry names its concern's folder, which exports the
 * handler; an entry that is `undefined` or `false` is off (production, a setting).
 */
import type {
  FastifyInstance,
  FastifyRequest,
  onErrorHookHandler,
  onListenHookHandler,
  onReadyHookHandler,
  onRequestAbortHookHandler,
  onRequestHookHandler,
  onResponseHookHandler,
  onRouteHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  preParsingHookHandler,
} from 'fastify';
import { corsHook } from './cors/cors-hook.js';
import type { CorsPolicy } from './cors/cors-policy.js';
import type { ErrorResponder } from './errors/error-handler.js';
import { replacedHandlerWarning, type RootErrorHandler } from './errors/root-error-handler.js';
import { headHook } from './guards/head-hook.js';
import { hostHook } from './guards/host-hook.js';
import type { TrustedHosts } from './guards/trusted-hosts.js';
import { requestStateHook } from './http/request-state.js';
import type { Limits } from './limits/limits.js';
import { profilerAccessHook } from './profiler/access/access-hook.js';
import { productionAccessHook } from './profiler/access/production-access.js';
import { debugHeadersHook } from './profiler/debug-headers-hook.js';
import type { Profiler } from './profiler/profiler.js';
import { abortHook, finishHook, keepResponse, markStagesOf, noteErrorHook } from './profiler/stage-hooks.js';
import { toolbarHook } from './profiler/toolbar-hook.js';
import { earlierRoutesWarning } from './routing/earlier-routes.js';
import type { RouteTable } from './routing/route-table.js';
import { unmatchedHook } from './routing/unmatched-hook.js';
import { accessLogHook } from './server/access-log.js';
import { publicDebugWarning } from './server/debug-exposure.js';
import { announcementHook, type Announcement } from './server/profiler-announcement.js';

/** The folder (or, for the plugin's own, the file) whose module exports a hook. */
type Concern =
  | 'http/'
  | 'guards/'
  | 'cors/'
  | 'errors/'
  | 'routing/'
  | 'limits/'
  | 'profiler/'
  | 'server/'
  | 'plugin.ts';

interface KernelHook<Handler> {
  concern: Concern;
  hook: Handler;
  /** Added to each scope of routes API routes that can have a body, not to the whole application. */
  scope?: 'body routes';
}

/** One stage's hooks, first to last; an absent entry is off. */
type Stage<Handler> = ReadonlyArray<KernelHook<Handler> | undefined | false>;

export interface KernelHooks {
  onRequest: Stage<onRequestHookHandler>;
  preParsing: Stage<preParsingHookHandler>;
  preHandler: Stage<preHandlerHookHandler>;
  onError: Stage<onErrorHookHandler>;
  onSend: Stage<onSendHookHandler>;
  onResponse: Stage<onResponseHookHandler>;
  onRequestAbort: Stage<onRequestAbortHookHandler>;
  onRoute: Stage<onRouteHookHandler>;
  onReady: Stage<onReadyHookHandler>;
  onListen: Stage<onListenHookHandler>;
  onClose: Stage<() => Promise<void>>;
}

interface KernelHookParts {
  /** HOST as a URL writes it, for links of requests without a usable Host. */
  serverHost: string;
  trustedHosts: TrustedHosts;
  cors: CorsPolicy;
  /** Off: no CORS hook (the plugin's default, the application's own policy decides). Default on. */
  corsEnabled?: boolean;
  /** Debug mode, and production when it keeps reports. */
  profiler: Profiler | undefined;
  /** Debug mode: the profiler's pages, the toolbar, the debug headers. */
  debug: boolean;
  /**
   * Production: the profiler whose pages PROFILER_SECRET or `profilerAccess` opens (the one that
   * keeps reports, or one of their own that profiles nothing); others get the ordinary 404.
   */
  productionPages?: Profiler | undefined;
  /** Without TRUSTED_PROXIES: warns of a proxy on loopback (profiler/access.ts). */
  watchForwarded?: ((request: FastifyRequest) => void) | undefined;
  /** Every route the application has, native or declared; whether a plugin answers every OPTIONS (`@fastify/cors`). */
  routes: RouteTable;
  limits: Limits;
  /** The error pipeline, for the errors a hook answers itself (the unmatched outcome). */
  respond: ErrorResponder;
  /** Debug mode's toolbar in the application's HTML pages (PROFILER_TOOLBAR). */
  toolbar: boolean;
  /** An access line per request. */
  accessLog: boolean;
  /** The routes the application added before vigil, for a warning. */
  earlierRoutes: readonly string[];
  /** vigil's root error handler, replaced or not, for a warning. */
  rootErrorHandler: RootErrorHandler;
  /** What is said once the application listens; undefined: nothing. */
  announce: Announcement | undefined;
  /** Gives back debug mode's process-wide taps (stack frames, client-error traces, console lines). */
  releaseTaps: (() => void) | undefined;
}

/** The table: every stage's hooks, first to last. */
export function kernelHooks(app: FastifyInstance, parts: KernelHookParts): KernelHooks {
  const { profiler, limits, releaseTaps } = parts;
  // What debug mode adds for the clients the profiler admits; production's profiler only keeps reports.
  const pages = parts.debug ? profiler : undefined;
  return {
    onRequest: requestHooks(parts),
    // Routed requests only from here on, to onSend.
    // None: the profiler marks where the body stage begins with each route's own last onRequest hook (onRoute below).
    preParsing: [],
    preHandler: [
      // limits/: multipart uploads, saved to temporary files before the handler runs.
      { concern: 'limits/', hook: limits.uploadsHook, scope: 'body routes' },
    ],
    // profiler/: the error the request is answered with, for its report.
    onError: [profiler && { concern: 'profiler/', hook: noteErrorHook(profiler) }],
    onSend: [
      // profiler/: the body as the application answered it, before the toolbar goes in.
      profiler && { concern: 'profiler/', hook: keepResponse },
      // profiler/: Server-Timing, and the debug headers exposed to an allowed origin, for the clients the profiler admits.
      pages && { concern: 'profiler/', hook: debugHeadersHook((request) => pages.admits(request)) },
      // profiler/: the toolbar, in the application's HTML pages, for the clients the profiler admits.
      pages &&
        parts.toolbar && {
          concern: 'profiler/',
          hook: toolbarHook(pages.collectors, (request) => pages.admits(request)),
        },
    ],
    onResponse: [
      // profiler/: the report collected and queued.
      profiler && { concern: 'profiler/', hook: finishHook(profiler) },
      // server/: the access line, with the report's link.
      parts.accessLog && { concern: 'server/', hook: accessLogHook },
    ],
    // profiler/: the report of a request whose client went away (HTTP/2: HTTP/1's are seen as their connections close).
    onRequestAbort: [profiler && !profiler.watchesConnections && { concern: 'profiler/', hook: abortHook(profiler) }],
    onRoute: [
      // routing/: every route added from here on is known to the 404/405/301 decisions.
      { concern: 'routing/', hook: parts.routes.collect },
      // limits/: a native route's handler runs under MAX_EXECUTION_TIME.
      { concern: 'limits/', hook: limits.adoptRoute },
      // profiler/: each route marks where its body stage begins, and its handler when it is called
      // and its route (outside the deadline's wrap).
      profiler && { concern: 'profiler/', hook: markStagesOf },
    ],
    onReady: [
      // routing/, errors/: the silent traps, said naming vigil.
      { concern: 'routing/', hook: earlierRoutesWarning(parts.earlierRoutes, app.log) },
      { concern: 'errors/', hook: replacedHandlerWarning(parts.rootErrorHandler, app.log) },
    ],
    onListen: [
      // server/: debug mode on an address other machines reach.
      pages && { concern: 'server/', hook: publicDebugWarning },
      // server/: the mode, and where the profiler and its reports are.
      parts.announce && { concern: 'server/', hook: announcementHook(app, parts.announce) },
    ],
    // Run last added first: the limits stop, then the profiler writes its last reports, then the taps go.
    onClose: [
      releaseTaps && { concern: 'plugin.ts', hook: async () => releaseTaps() },
      profiler && { concern: 'profiler/', hook: () => profiler.close() },
      parts.productionPages &&
        parts.productionPages !== profiler && { concern: 'profiler/', hook: () => parts.productionPages!.close() },
      { concern: 'limits/', hook: () => limits.close() },
    ],
  };
}

/**
 * The onRequest hooks, first to last; a hook that answers or fails ends the request's way
 * there. The hooks just before the unmatched one call `done()` from one line each, whatever
 * the request: the unmatched hook reuses the trace of its first 404 and 405 (unmatched-hook.ts).
 */
function requestHooks({
  serverHost,
  trustedHosts,
  cors,
  corsEnabled = true,
  profiler,
  debug,
  productionPages,
  watchForwarded,
  routes,
  limits,
  respond,
}: KernelHookParts): Stage<onRequestHookHandler> {
  const pages = debug ? profiler : undefined;
  // A plugin that owns `OPTIONS *` owns the cross-origin policy: the kernel neither answers nor adds.
  const exempt = (request: FastifyRequest) => routes.ownsPreflights || (pages?.speaksFor(request) ?? false);
  const answer: ErrorResponder = (error, request, reply) => {
    // What the onError hook would note, for an error that skips Fastify's error handling.
    if (error instanceof Error) profiler?.noteError(request, error);
    respond(error, request, reply);
  };
  return [
    // http/: every later stage finds the request's state in place.
    { concern: 'http/', hook: requestStateHook(serverHost) },
    // profiler/: a token and a report for every request, even one refused below.
    profiler && { concern: 'profiler/', hook: profiler.tokenHook },
    // guards/: a malformed head or a CONNECT refused, its connection closed; the date in debug mode.
    { concern: 'guards/', hook: headHook(debug) },
    // guards/: a Host the kernel can print, among TRUSTED_HOSTS.
    { concern: 'guards/', hook: hostHook(trustedHosts) },
    // cors/: preflights answered on any path; CORS headers on the rest (not the profiler's pages).
    corsEnabled && { concern: 'cors/', hook: corsHook(cors, { exempt }) },
    // profiler/: its pages for the clients it admits; others get the ordinary 404.
    pages && { concern: 'profiler/', hook: profilerAccessHook(pages, watchForwarded) },
    // profiler/: production's pages for PROFILER_SECRET or the application's check; others get the ordinary 404.
    productionPages && { concern: 'profiler/', hook: productionAccessHook(productionPages) },
    // routing/: 404, 405 or 301 for what the router did not match, before the body is read;
    // the errors go to the pipeline from here, not through Fastify's error handling.
    { concern: 'routing/', hook: unmatchedHook(routes, answer, debug) },
    // limits/: routed requests only from here on: the heap guard, then the declared body size.
    ...limits.requestHooks.map((hook): KernelHook<onRequestHookHandler> => ({ concern: 'limits/', hook })),
  ];
}

/** The entries of a stage that are on, for the application or for the scopes of routes with a body. */
function on<Handler>(stage: Stage<Handler>, scope?: 'body routes'): Handler[] {
  return stage
    .filter((entry): entry is KernelHook<Handler> => entry !== undefined && entry !== false && entry.scope === scope)
    .map((entry) => entry.hook);
}

/** Adds the table's hooks to the application, each stage's in its order. */
export function installKernelHooks(app: FastifyInstance, hooks: KernelHooks): void {
  for (const hook of on(hooks.onRequest)) app.addHook('onRequest', hook);
  for (const hook of on(hooks.preParsing)) app.addHook('preParsing', hook);
  for (const hook of on(hooks.preHandler)) app.addHook('preHandler', hook);
  for (const hook of on(hooks.onError)) app.addHook('onError', hook);
  for (const hook of on(hooks.onSend)) app.addHook('onSend', hook);
  for (const hook of on(hooks.onResponse)) app.addHook('onResponse', hook);
  for (const hook of on(hooks.onRequestAbort)) app.addHook('onRequestAbort', hook);
  for (const hook of on(hooks.onRoute)) app.addHook('onRoute', hook);
  for (const hook of on(hooks.onReady)) app.addHook('onReady', hook);
  for (const hook of on(hooks.onListen)) app.addHook('onListen', hook);
  for (const hook of on(hooks.onClose)) app.addHook('onClose', hook);
}

/** Adds the table's hooks of the scopes of routes API routes that can have a body to `scope`. */
export function installBodyScopeHooks(scope: FastifyInstance, hooks: KernelHooks): void {
  for (const hook of on(hooks.preHandler, 'body routes')) scope.addHook('preHandler', hook);
}
