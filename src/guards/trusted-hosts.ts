/**
 * The hosts the service answers for (`TRUSTED_HOSTS`, Symfony's setting): a request whose
 * Host (or, from a trusted proxy, X-Forwarded-Host) matches none of the expressions is
 * refused, so that a name an attacker points at the service (DNS rebinding) cannot make a
 * browser treat the service, its debug pages and its profiler as that name's own.
 */
import { hostName } from '../http/request-url.js';

export { hostName };

/**
 * As Symfony does, the expressions are matched against the host without its port,
 * case-insensitively, anchored only where they say so (`^localhost$`).
 */
export class TrustedHosts {
  constructor(private readonly patterns: readonly RegExp[]) {}

  /** False only when expressions are set and none matches `host` (a Host header value, port and all). */
  trusts(host: string): boolean {
    if (this.patterns.length === 0) return true;
    const name = hostName(host);
    return this.patterns.some((pattern) => pattern.test(name));
  }
}
