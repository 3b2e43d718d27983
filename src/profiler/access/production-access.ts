/**
 * Who may open the profiler in production: a request bearing PROFILER_SECRET
 * (`Authorization: Bearer`), a browser holding the session its login page opened, or, in
 * plugin mode, whom the application's own `profilerAccess` check admits (which then
 * replaces the secret). Anyone else learns nothing of the profiler: the ordinary 404, as
 * for a path without a route. Failed attempts at the secret are logged and bounded per
 * client address.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import { HttpError } from '../../errors/http-errors.js';
import { noRouteError } from '../../routing/unmatched-hook.js';
import { describeFailure } from '../../utils/describe-failure.js';
import { bearerOf, cookieOf, SecretCredentials, SESSION_COOKIE, sessionCookie } from './credentials.js';
import { FailedAttempts, type FailedAttemptsRule } from './failed-attempts.js';
import { settlePageHeaders } from './page-headers.js';

declare module '../../http/request-state.js' {
  interface RequestState {
    /** Production: the profiler's pages are open to this request (decided by its access hook). */
    profilerOpen?: boolean;
  }
}

/** The application's own decision: true opens the profiler to the request. */
export type ProfilerAccessCheck = (request: FastifyRequest) => boolean | Promise<boolean>;

/** `login`: the login page, asked for with its key; `throttled`: the same, from an address past its bound of failures. */
type Verdict = 'open' | 'login' | 'refused' | 'throttled';

/** The login page: answered only to whom gives its key (`?key=`), derived from the secret. */
export const LOGIN_PATH = `${PROFILER_PATH}/login`;

/** A client address as remembered: an address from a proxy's header is cut, whatever it holds. */
const MAX_ADDRESS_LENGTH = 64;

interface ProductionAccessOptions {
  /** PROFILER_SECRET; required unless `check` is given. */
  secret?: string | undefined;
  /** PROFILER_SESSION_MAX_AGE. */
  sessionMaxAgeMs: number;
  /** The application's `profilerAccess`: when given, it alone decides. */
  check?: ProfilerAccessCheck | undefined;
  /** The client's address, as the profiler's access reads it (TRUSTED_PROXIES walked). */
  clientOf(request: FastifyRequest): string;
  warn(message: string): void;
  attempts?: FailedAttemptsRule;
  now?: () => number;
}

export class ProductionAccess {
  private readonly credentials: SecretCredentials | undefined;
  private readonly failures: FailedAttempts;
  private readonly now: () => number;

  constructor(private readonly options: ProductionAccessOptions) {
    this.credentials =
      options.check === undefined && options.secret !== undefined ? new SecretCredentials(options.secret) : undefined;
    this.now = options.now ?? Date.now;
    this.failures = new FailedAttempts(options.attempts, this.now);
  }

  /** True when the secret opens the profiler, and so its login page exists. */
  get hasLogin(): boolean {
    return this.credentials !== undefined;
  }

  /** Whether the request may open the profiler's pages; never throws, whatever the check does. */
  async decide(request: FastifyRequest): Promise<Verdict> {
    // Another site's page (an <img>, a form) never makes the profiler work, whatever it carries.
    if (request.headers['sec-fetch-site'] === 'cross-site') return 'refused';
    if (this.options.check !== undefined) return (await this.checked(request)) ? 'open' : 'refused';
    return this.credentials === undefined ? 'refused' : this.bySecret(request, this.credentials);
  }

  /**
   * The login form's secret: the `Set-Cookie` of a new session when it is right; undefined
   * when it is not, counted and logged as a failure.
   */
  login(request: FastifyRequest, given: unknown): string | undefined {
    const credentials = this.credentials;
    if (credentials === undefined) return undefined;
    if (typeof given === 'string' && credentials.isSecret(given)) {
      const maxAgeMs = this.options.sessionMaxAgeMs;
      return sessionCookie(credentials.session(this.now() + maxAgeMs), PROFILER_PATH, maxAgeMs);
    }
    this.failed(request, this.clientOf(request), 'a wrong secret on the login page');
    return undefined;
  }

  /** Seconds until the client may try again; undefined while it may. */
  retryAfter(request: FastifyRequest): number | undefined {
    const until = this.failures.refusedUntil(this.clientOf(request));
    return until === undefined ? undefined : Math.max(1, Math.ceil((until - this.now()) / 1000));
  }

  private bySecret(request: FastifyRequest, credentials: SecretCredentials): Verdict {
    const client = this.clientOf(request);
    // Past its bound, an address is not checked at all: a right guess would look like a wrong one.
    if (this.failures.blocks(client)) return this.asksLogin(request, credentials) ? 'throttled' : 'refused';
    const bearer = bearerOf(single(request.headers.authorization));
    if (bearer !== undefined)
      return credentials.isSecret(bearer) ? 'open' : this.failed(request, client, 'a wrong bearer secret');
    const session = cookieOf(single(request.headers.cookie), SESSION_COOKIE);
    if (session !== undefined) {
      const state = credentials.sessionState(session, this.now());
      if (state === 'valid') return 'open';
      if (state === 'forged') return this.failed(request, client, 'a forged session cookie');
      // An expired session is no attempt: the login page, with its key, opens a new one.
    }
    const key = loginKeyOf(request);
    if (key === undefined) return 'refused';
    return credentials.isLoginKey(key) ? 'login' : this.failed(request, client, 'a wrong login page key');
  }

  private asksLogin(request: FastifyRequest, credentials: SecretCredentials): boolean {
    const key = loginKeyOf(request);
    return key !== undefined && credentials.isLoginKey(key);
  }

  private async checked(request: FastifyRequest): Promise<boolean> {
    try {
      return (await this.options.check!(request)) === true;
    } catch (error) {
      this.options.warn(`vigil: the profilerAccess check failed (${describeFailure(error)}): the profiler is refused`);
      return false;
    }
  }

  /** One warning line per failure, naming the client and the path, never what it gave. */
  private failed(request: FastifyRequest, client: string, what: string): 'refused' {
    const bounded = this.failures.fail(client);
    const path = request.url.split('?', 1)[0];
    this.options.warn(
      `vigil: profiler access refused to ${client}: ${what} (${request.method} ${path})${bounded ? '; its next attempts are refused unchecked for a while' : ''}`,
    );
    return 'refused';
  }

  private clientOf(request: FastifyRequest): string {
    return this.options.clientOf(request).slice(0, MAX_ADDRESS_LENGTH);
  }
}

/** A header given once; a repeated one counts as none. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The `key` of a request to the login page; undefined for another path or without one. */
function loginKeyOf(request: FastifyRequest): string | undefined {
  const url = request.url;
  const query = url.indexOf('?');
  if ((query === -1 ? url : url.slice(0, query)) !== LOGIN_PATH || query === -1) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('key') ?? undefined;
}

/** What the hook asks of the profiler: whether a request is for one of its pages, and its production access. */
interface ProductionPages {
  isProfilerRequest(request: FastifyRequest): boolean;
  readonly production: ProductionAccess | undefined;
}

/**
 * The production profiler's access hook: a request to one of its pages goes on only when
 * {@link ProductionAccess.decide} opens it; otherwise the ordinary 404, or a 429 on the
 * login page asked for with its key from an address past its bound of failures.
 */
export function productionAccessHook(profiler: ProductionPages): onRequestHookHandler {
  return function productionProfilerAccess(request, reply, done) {
    const access = profiler.production;
    if (access === undefined || !profiler.isProfilerRequest(request)) return done();
    access.decide(request).then(
      (verdict) => {
        if (verdict === 'open' || verdict === 'login') {
          if (request.vigil) request.vigil.profilerOpen = true;
          settlePageHeaders(reply.raw);
          return done();
        }
        if (verdict === 'throttled') return done(throttled(access.retryAfter(request) ?? 1));
        done(noRouteError(request));
      },
      (error: Error) => done(error),
    );
  };
}

function throttled(retryAfterSeconds: number): HttpError {
  return new HttpError(
    'VIGIL_ERR_PROFILER_LOGIN_THROTTLED',
    'Too many failed attempts from this address: try again later.',
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  );
}
