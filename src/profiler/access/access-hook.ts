/**
 * The profiler's access hook: a client the profiler does not admit (not loopback, not in
 * PROFILER_ALLOW) learns nothing of it, and gets the ordinary 404 of a path without a route.
 * An admitted client asking under another host name (DNS rebinding), or from another site's
 * page (`Sec-Fetch-Site: cross-site`), gets a 403 saying why.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { HttpError } from '../../errors/http-errors.js';
import { noRouteError } from '../../routing/unmatched-hook.js';
import type { ProfilerAccess, ProfilerRefusal } from './access.js';

/** What the hook asks of the profiler: whether it refuses a request, and the host it was asked under. */
interface RefusingProfiler {
  refuses(request: FastifyRequest): ProfilerRefusal | undefined;
  readonly access: Pick<ProfilerAccess, 'hostOf'>;
}

/** `watchForwarded`: sees every request, to warn of a proxy the kernel does not trust (access.ts). */
export function profilerAccessHook(
  profiler: RefusingProfiler,
  watchForwarded?: (request: FastifyRequest) => void,
): onRequestHookHandler {
  return function profilerAccess(request, _reply, done) {
    watchForwarded?.(request);
    const refused = profiler.refuses(request);
    if (refused === undefined) return done();
    if (refused === 'client') return done(noRouteError(request));
    done(refused === 'host' ? hostRefusal(profiler, request) : crossSiteRefusal());
  };
}

function hostRefusal(profiler: Pick<RefusingProfiler, 'access'>, request: FastifyRequest): HttpError {
  const name = profiler.access.hostOf(request) ?? '';
  return new HttpError(
    'VIGIL_ERR_PROFILER_HOST',
    `The profiler answers only loopback host names, HOST and TRUSTED_HOSTS, not "${name}".`,
  );
}

function crossSiteRefusal(): HttpError {
  return new HttpError(
    'VIGIL_ERR_PROFILER_CROSS_SITE',
    'The profiler answers no request made by a page of another site (Sec-Fetch-Site: cross-site): open it from its own address.',
  );
}
