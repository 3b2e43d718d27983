/**
 * Which requests are the profiler's, and whom it opens to: a request for one of its pages,
 * routed or not; a client it admits in debug mode (loopback, PROFILER_ALLOW, a host name it
 * answers, never another site's page); in production, a request its access hook opened.
 */
import type { FastifyRequest } from 'fastify';
import { isProfilerPath } from '../../debug/request-debug.js';
import { requestTarget } from '../../http/request-url.js';
import { routeOf } from '../../routing/route-table.js';
import { safeDecodeUri } from '../../utils/safe-decode.js';
import type { ProfilerAccess, ProfilerRefusal } from './access.js';
import type { ProductionAccess } from './production-access.js';

/** The browser says another site's page made the request (Fetch Metadata); older clients send no such header. */
function isCrossSite(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-site'] === 'cross-site';
}

/**
 * What every target of a profiler request holds: the profiler's name in any case (a router
 * may ignore case), or a percent sign that may encode it.
 */
const MAYBE_PROFILER = /_profiler|%/i;

/** A route path with parameters or a wildcard, in Fastify's spelling or the routes API's. */
function isPattern(path: string): boolean {
  return path.includes(':') || path.includes('*') || path.includes('{');
}

export class ProfilerGate {
  constructor(
    private readonly access: ProfilerAccess,
    private readonly production: ProductionAccess | undefined,
  ) {}

  /**
   * Why a request to a profiler page is refused: `client`, from a client the profiler does
   * not admit (the kernel answers it as if no route existed); `host`, for a host name it
   * does not answer (see `access.ts`); `cross-site`, for a request a page of another site
   * made (an `<img>` or a form can fire one without reading it). Undefined for the others.
   * A refused request was profiled like any other.
   */
  refuses(request: FastifyRequest): ProfilerRefusal | undefined {
    if (!this.isProfilerRequest(request)) return undefined;
    if (!this.admits(request)) return 'client';
    if (!this.access.answersHost(request)) return 'host';
    return isCrossSite(request) ? 'cross-site' : undefined;
  }

  /**
   * True for a request to a profiler page that the profiler serves (it carries no profile), and only
   * for clients it admits: anyone else is an ordinary request, answered with the ordinary 404.
   */
  serves(request: FastifyRequest): boolean {
    if (this.production) return this.opensInProduction(request);
    return (
      this.isProfilerRequest(request) &&
      this.admits(request) &&
      this.access.answersHost(request) &&
      !isCrossSite(request)
    );
  }

  /**
   * True for a request to a profiler page from a client it admits, served or refused: its
   * answer is the profiler's, with the pages' headers and no one else's cross-origin grant.
   */
  speaksFor(request: FastifyRequest): boolean {
    if (this.production) return this.opensInProduction(request);
    return this.isProfilerRequest(request) && this.admits(request);
  }

  /** Production: a request to a page its access hook opened (false until it decided). */
  private opensInProduction(request: FastifyRequest): boolean {
    return request.vigil?.profilerOpen === true && this.isProfilerRequest(request);
  }

  /** True when the request's client may open the profiler and see debug output (never in production): worked out once. */
  admits(request: FastifyRequest): boolean {
    if (this.production) return false;
    const state = request.vigil;
    if (state?.admitted != null) return state.admitted;
    const admitted = this.access.admits(request);
    if (state) state.admitted = admitted;
    return admitted;
  }

  /**
   * The profiler's routes, or (unrouted) a path under /_profiler, percent-encoded or not,
   * in any target form (`POST https://host/_profiler` is unrouted for POST, and its path is
   * the profiler's).
   */
  isProfilerRequest(request: FastifyRequest): boolean {
    const url = request.url;
    // Most requests are told apart here, before their route is read (Fastify builds `routeOptions`
    // at each read); most by two scans: without `_` or `%` a target cannot name the profiler.
    if ((!url.includes('_') && !url.includes('%')) || !MAYBE_PROFILER.test(url)) return false;
    if (!request.is404) {
      const route = routeOf(request)?.path ?? '';
      // A pattern may also cover the profiler's paths (`@fastify/cors`'s `OPTIONS *`): then the target decides.
      if (isProfilerPath(route) || !isPattern(route)) return isProfilerPath(route);
    }
    const target = url.charCodeAt(0) === 0x2f ? url : requestTarget(request).path;
    return isProfilerPath(target) || (target.includes('%') && isProfilerPath(safeDecodeUri(target)));
  }
}
