class TrustedHosts {
  constructor(patterns) {
    this.patterns = patterns;
  }
  patterns;
  /** False only when expressions are set and none matches `host` (a Host header value, port and all). */
  trusts(host) {
    if (this.patterns.length === 0) return true;
    const name = hostName(host);
    return this.patterns.some((pattern) => pattern.test(name));
  }
}
function hostName(host) {
  const colon = host.lastIndexOf(":");
  const name = colon > host.lastIndexOf("]") ? host.slice(0, colon) : host;
  return name.toLowerCase();
}
export {
  TrustedHosts,
  hostName
};
//# sourceMappingURL=trusted-hosts.js.map
