import { BlockList, isIP } from "node:net";
const LOOPBACK = ["127.0.0.0/8", "::1/128"];
class ProfilerAccess {
  allowed = new BlockList();
  /** `networks`: IPs or CIDRs, as `PROFILER_ALLOW` holds them (already validated). */
  constructor(networks = []) {
    for (const network of [...LOOPBACK, ...networks]) {
      const [address = "", bits] = network.split("/");
      const type = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (bits === void 0) this.allowed.addAddress(address, type);
      else this.allowed.addSubnet(address, Number(bits), type);
    }
  }
  /** True for loopback and allowed networks; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as IPv4. */
  allows(ip) {
    const family = isIP(ip);
    return family !== 0 && this.allowed.check(ip, family === 6 ? "ipv6" : "ipv4");
  }
}
const PAGE_SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin"
};
export {
  PAGE_SECURITY_HEADERS,
  ProfilerAccess
};
//# sourceMappingURL=access.js.map
