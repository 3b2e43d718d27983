/**
 * An IPv4 address of this machine outside loopback. A connection to it from this machine
 * comes from it too, so a server listening on every interface sees a peer that is not
 * loopback: an outsider, over a real socket, without a second machine.
 */
import { networkInterfaces } from 'node:os';

export function outsideAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (!address.internal && address.family === 'IPv4') return address.address;
  }
  return undefined;
}

/** Why the outsider tests are skipped, or false when they can run. */
export const NO_OUTSIDE_ADDRESS = outsideAddress() === undefined && 'this machine has no IPv4 address outside loopback';
