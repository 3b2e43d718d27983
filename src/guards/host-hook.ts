/**
 * The Host's hook: a host the kernel could not print or link to safely is the client's
 * mistake (400, as Symfony answers), and so is one outside TRUSTED_HOSTS.
 */
import type { onRequestHookHandler } from 'fastify';
import { BadRequestHttpError } from '../errors/http-errors.js';
import { isValidHost, requestHost } from '../http/request-url.js';
import { hostName, type TrustedHosts } from './trusted-hosts.js';

export function hostHook(trustedHosts: TrustedHosts): onRequestHookHandler {
  // Clients send the same Host request after request: the last one let through is not checked again.
  let lastAccepted: string | undefined;
  return function requestHostCheck(request, _reply, done) {
    const host = requestHost(request);
    if (host === lastAccepted) return done();
    if (!isValidHost(host)) return done(new BadRequestHttpError(`Invalid Host "${host}".`, 'VIGIL_ERR_INVALID_HOST'));
    if (!trustedHosts.trusts(host))
      return done(new BadRequestHttpError(`Untrusted Host "${hostName(host)}".`, 'VIGIL_ERR_UNTRUSTED_HOST'));
    lastAccepted = host;
    done();
  };
}
