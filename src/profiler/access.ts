/**
 * Who may open the profiler: clients on loopback and in `PROFILER_ALLOW`. The client is
 * `request.ip`, so behind a trusted proxy the forwarded address decides, not the proxy's.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

export class ProfilerAccess {
  private readonly allowed = new BlockList();

  /** `networks`: IPs or CIDRs, as `PROFILER_ALLOW` holds them (already validated). */
  constructor(networks: readonly string[] = []) {
    for (const network of [...LOOPBACK, ...networks]) {
      const [address = '', bits] = network.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.allowed.addAddress(address, type);
      else this.allowed.addSubnet(address, Number(bits), type);
    }
  }

  /** True for loopback and allowed networks; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as IPv4. */
  allows(ip: string): boolean {
    const family = isIP(ip);
    return family !== 0 && this.allowed.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** What the forwarding check reads of a request. */
export interface ForwardedRequest {
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  socket: { remoteAddress?: string | undefined };
}

/**
 * Warns once when a loopback peer forwards for others while no proxy is trusted: behind a
 * proxy on the same machine every client then counts as loopback, and loopback opens the
 * profiler. `request.ip` equal to the peer means no proxy setting believed the headers.
 */
export function forwardedLoopbackWarning(warn: (message: string) => void): (request: ForwardedRequest) => void {
  const loopback = new ProfilerAccess();
  let warned = false;
  return (request) => {
    if (warned || (request.headers['x-forwarded-for'] === undefined && request.headers.forwarded === undefined)) return;
    const peer = request.socket.remoteAddress;
    if (peer === undefined || request.ip !== peer || !loopback.allows(peer)) return;
    warned = true;
    warn(
      `A request from loopback (${peer}) carries X-Forwarded-For or Forwarded, but TRUSTED_PROXIES is empty: every client of a proxy on this machine counts as loopback and may open /_profiler. Set TRUSTED_PROXIES to the proxy's address`,
    );
  };
}

/**
 * Sent with every profiler page, errors included. The pages need no script at all, and
 * their only styles are inline `<style>` blocks (the error pages' too).
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};
