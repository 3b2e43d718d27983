/**
 * The kernel's `onRequest` hooks in the order a request meets them: the one place that
 * order is stated. Each hook is one concern and lives in its concern's folder (Symfony
 * gives its listeners priorities; here the position in the list is the priority).
 * The hooks just before the unmatched one call `done()` from one line each, whatever the
 * request: the unmatched hook reuses the trace of its first 404 and 405 (unmatched-hook.ts).
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { corsHook } from './cors/cors-hook.js';
import type { ErrorResponder } from './errors/error-handler.js';
import type { CorsPolicy } from './cors/cors-policy.js';
import { requestStateHook } from './http/request-state.js';
import { profilerAccessHook } from './profiler/access/access-hook.js';
import type { Profiler } from './profiler/profiler.js';
import { unmatchedHook, type MatcherSource } from './routing/unmatched-hook.js';
import { headHook } from './guards/head-hook.js';
import { hostHook } from './guards/host-hook.js';
import type { TrustedHosts } from './guards/trusted-hosts.js';

export interface RequestHookParts {
  /** HOST as a URL writes it, for links of requests without a usable Host. */
  serverHost: string;
  trustedHosts: TrustedHosts;
  cors: CorsPolicy;
  /** Off: no CORS hook (the plugin's default, the application's own policy decides). Default on. */
  corsEnabled?: boolean;
  /** Debug mode only. */
  profiler: Profiler | undefined;
  /** Without TRUSTED_PROXIES: warns of a proxy on loopback (profiler/access.ts). */
  watchForwarded?: ((request: FastifyRequest) => void) | undefined;
  /** Every route the application has, native or declared; whether a plugin answers every OPTIONS (`@fastify/cors`). */
  routes: MatcherSource & { readonly ownsPreflights?: boolean };
  /** The limits' hooks for routed requests, in their order. */
  limits: readonly onRequestHookHandler[];
  /** The error pipeline, for the errors a hook answers itself (the unmatched outcome). */
  respond: ErrorResponder;
}

/** The hooks, first to last; a hook that answers or fails ends the request's way here. */
export function requestHooks({
  serverHost,
  trustedHosts,
  cors,
  corsEnabled = true,
  profiler,
  watchForwarded,
  routes,
  limits,
  respond,
}: RequestHookParts): onRequestHookHandler[] {
  // A plugin that owns `OPTIONS *` owns the cross-origin policy: the kernel neither answers nor adds.
  const exempt = (request: FastifyRequest) => routes.ownsPreflights === true || (profiler?.speaksFor(request) ?? false);
  const hooks: Array<onRequestHookHandler | undefined> = [
    // http/: every later stage finds the request's state in place.
    requestStateHook(serverHost),
    // profiler/: a token and a report for every request, even one refused below.
    profiler?.tokenHook,
    // guards/: a malformed head or a CONNECT refused, its connection closed; the date in debug mode.
    headHook(profiler !== undefined),
    // server/: a Host the kernel can print, among TRUSTED_HOSTS.
    hostHook(trustedHosts),
    // cors/: preflights answered on any path; CORS headers on the rest (not the profiler's pages).
    corsEnabled ? corsHook(cors, { exempt }) : undefined,
    // profiler/: its pages for the clients it admits; others get the ordinary 404.
    profiler && profilerAccessHook(profiler, watchForwarded),
    // routing/: 404, 405 or 301 for what the router did not match, before the body is read;
    // the errors go to the pipeline from here, not through Fastify's error handling.
    unmatchedHook(routes, respond, profiler !== undefined),
    // limits/: routed requests only from here on: the heap guard, then the declared body size.
    ...limits,
  ];
  return hooks.filter((hook) => hook !== undefined);
}

export function installRequestHooks(app: FastifyInstance, parts: RequestHookParts): void {
  for (const hook of requestHooks(parts)) app.addHook('onRequest', hook);
}
