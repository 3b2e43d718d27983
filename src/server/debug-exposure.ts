/**
 * Debug mode on an address beyond loopback, said once at start, loudly: the default
 * (`APP_ENV=dev`) is debug mode, and an application that listens on `0.0.0.0` reaches
 * other machines with it. Their clients get the production rendering (only the profiler's
 * clients see debug output), but the operator should choose production on purpose.
 */
import type { onListenHookHandler } from 'fastify';
import { BlockList, isIP, type AddressInfo } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

function isLoopback(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Warns, once the server listens, when debug mode listens on an address other clients can reach. */
export const publicDebugWarning: onListenHookHandler = function warnIfPublic(done) {
  // A Unix socket's path is no network address: it is left out.
  const exposed = this.addresses().filter(
    (listening) => typeof listening !== 'string' && isIP(listening.address) !== 0 && !isLoopback(listening.address),
  ) as AddressInfo[];
  if (exposed.length > 0) {
    const where = exposed
      .map(({ address, port }) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`))
      .join(', ');
    this.log.warn(
      `DEBUG MODE ON A PUBLIC ADDRESS (${where}): clients outside loopback and PROFILER_ALLOW get production error pages, but set APP_ENV=prod for anything reachable from another machine`,
    );
  }
  done();
};
