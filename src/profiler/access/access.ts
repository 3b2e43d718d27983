/**
 * Who may open the profiler: clients on loopback and in `PROFILER_ALLOW`. The client is the
 * socket's peer, walked back through X-Forwarded-For across vigil's own TRUSTED_PROXIES only:
 * never `request.ip`, which an application's `trustProxy: true` takes from any client's claim.
 * And under which names: loopback's, HOST and TRUSTED_HOSTS, so that a page on a name an
 * attacker points at 127.0.0.1 (DNS rebinding) cannot read it as its own.
 */
import type { FastifyRequest } from 'fastify';
import { BlockList, isIP } from 'node:net';
import { hostName, urlHost } from '../../http/request-url.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

declare module '../../http/request-state.js' {
  interface RequestState {
    /** Debug mode: whether the client may open the profiler, and so see debug output; absent until asked. */
    admitted?: boolean | null;
  }
}

/** More trusted proxies in a row than any deployment has: the client is unknown, and refused. */
const MAX_PROXY_HOPS = 32;

/** What the verdicts read of a request: its socket and its headers. */
/** Why the profiler refuses a request to one of its pages (see `Profiler.refuses`). */
export type ProfilerRefusal = 'client' | 'host' | 'cross-site';

type AccessRequest = Pick<FastifyRequest, 'raw' | 'headers'>;

/** A connection's peer, judged once: it cannot change while the connection lasts. */
interface Peer {
  address: string;
  /** On loopback or in PROFILER_ALLOW. */
  allowed: boolean;
  /** In TRUSTED_PROXIES: its X-Forwarded-For is believed. */
  proxy: boolean;
}

export interface AccessSettings {
  /** `TRUSTED_PROXIES`, as validated IPs or CIDRs. */
  trustedProxies?: readonly string[];
  /** `HOST`: a name the profiler answers besides loopback's. */
  host?: string;
  /** `TRUSTED_HOSTS`: the names it answers besides those. */
  trustedHosts?: readonly RegExp[];
}

export class ProfilerAccess {
  private readonly allowed: BlockList;
  private readonly proxies: BlockList | undefined;
  private readonly peers = new WeakMap<object, Peer>();
  private readonly names: ReadonlySet<string>;
  private readonly trustedHosts: readonly RegExp[];

  /** `networks`: IPs or CIDRs, as `PROFILER_ALLOW` holds them (already validated). */
  constructor(networks: readonly string[] = [], { trustedProxies = [], host, trustedHosts = [] }: AccessSettings = {}) {
    this.allowed = blockList([...LOOPBACK, ...networks]);
    this.proxies = trustedProxies.length > 0 ? blockList(trustedProxies) : undefined;
    // A wildcard HOST (0.0.0.0) names no host.
    const configured = host === undefined ? '' : urlHost(host).toLowerCase();
    this.names = new Set(configured === '' ? LOOPBACK_NAMES : [...LOOPBACK_NAMES, configured]);
    this.trustedHosts = trustedHosts;
  }

  /**
   * The host name the request is for, lower case, without its port: a trusted proxy's
   * X-Forwarded-Host (its last entry), else Host. Undefined without one (no browser sends that).
   */
  hostOf(request: AccessRequest): string | undefined {
    let host = request.headers.host;
    const forwarded = request.headers['x-forwarded-host'];
    if (typeof forwarded === 'string' && forwarded.trim() !== '' && this.peerOf(request.raw.socket).proxy) {
      host = forwarded.slice(forwarded.lastIndexOf(',') + 1).trim();
    }
    return host === undefined ? undefined : hostName(host);
  }

  /** True when the profiler answers the request's host name: loopback's, HOST's, or one of TRUSTED_HOSTS. */
  answersHost(request: AccessRequest): boolean {
    const name = this.hostOf(request);
    return name === undefined || this.names.has(name) || this.trustedHosts.some((pattern) => pattern.test(name));
  }

  /** True for loopback and allowed networks; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as IPv4. */
  allows(ip: string): boolean {
    return contains(this.allowed, ip);
  }

  /** True when the request's client (see {@link clientOf}) may open the profiler. */
  admits(request: AccessRequest): boolean {
    const peer = this.peerOf(request.raw.socket);
    return peer.proxy ? this.allows(this.forwardedClient(request, peer.address)) : peer.allowed;
  }

  /**
   * True when a connection's peer may open the profiler, for a request that has no headers
   * to read (Node's parser refused it): a trusted proxy's client is unknown, so no.
   */
  admitsPeer(socket: object | null | undefined): boolean {
    const peer = this.peerOf(socket);
    return peer.allowed && !peer.proxy;
  }

  /** The client's address: the socket's peer, or, from a trusted proxy, the first X-Forwarded-For hop from the right that no trusted proxy added. */
  clientOf(request: AccessRequest): string {
    const peer = this.peerOf(request.raw.socket);
    return peer.proxy ? this.forwardedClient(request, peer.address) : peer.address;
  }

  private peerOf(socket: (object & { remoteAddress?: string | undefined }) | null | undefined): Peer {
    let peer = socket ? this.peers.get(socket) : undefined;
    if (peer === undefined) {
      const address = socket?.remoteAddress ?? '';
      // The usual case in development, a loopback peer and no proxy, needs neither the lists nor the cache.
      if (this.proxies === undefined && isLoopbackAddress(address)) return { address, allowed: true, proxy: false };
      peer = {
        address,
        allowed: this.allows(address),
        proxy: this.proxies !== undefined && contains(this.proxies, address),
      };
      if (socket) this.peers.set(socket, peer);
    }
    return peer;
  }

  /** Walks X-Forwarded-For from its right end (the hop the peer added) while the hops are trusted proxies. */
  private forwardedClient(request: AccessRequest, peer: string): string {
    const header = request.headers['x-forwarded-for'];
    const forwarded = Array.isArray(header) ? header.join(',') : header;
    if (forwarded === undefined || forwarded.trim() === '') return peer;
    let end = forwarded.length;
    for (let hop = 0; hop < MAX_PROXY_HOPS; hop++) {
      const comma = forwarded.lastIndexOf(',', end - 1);
      const address = forwarded.slice(comma + 1, end).trim();
      if (comma === -1 || !contains(this.proxies!, address)) return address;
      end = comma;
    }
    return '';
  }
}

/** A socket's address on loopback, as Node writes it (`127.x.y.z`, `::1`, `::ffff:127.x.y.z`). */
function isLoopbackAddress(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

function blockList(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', bits] = network.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

function contains(list: BlockList, ip: string): boolean {
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/** What the forwarding check reads of a request. */
interface ForwardedRequest {
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
