const SIMPLE_HEADERS = /* @__PURE__ */ new Set(["accept", "accept-language", "content-language", "origin"]);
class CorsPolicy {
  constructor(settings) {
    this.settings = settings;
    this.allowMethodsValue = settings.allowMethods.join(", ");
    this.allowHeadersValue = settings.allowHeaders.join(", ");
    this.exposeHeadersValue = settings.exposeHeaders.join(", ");
    this.allowedHeaders = new Set(settings.allowHeaders.map((name) => name.toLowerCase()));
  }
  settings;
  allowMethodsValue;
  allowHeadersValue;
  exposeHeadersValue;
  allowedHeaders;
  get allowMethods() {
    return this.settings.allowMethods;
  }
  get allowHeaders() {
    return this.settings.allowHeaders;
  }
  allows(origin) {
    return this.settings.allowOrigin.test(origin);
  }
  /**
   * A preflight (OPTIONS with Origin and Access-Control-Request-Method), on any path:
   * a disallowed origin gets the policy without Access-Control-Allow-Origin; then an
   * unlisted method is refused (405), then an unlisted header (400).
   */
  preflight(origin, requestedMethod, requestedHeaders) {
    const headers = {
      vary: "Origin",
      "access-control-allow-methods": this.allowMethodsValue,
      "access-control-allow-headers": this.allowHeadersValue,
      "access-control-max-age": String(this.settings.maxAge)
    };
    if (!this.allows(origin)) return { verdict: "answer", headers };
    headers["access-control-allow-origin"] = origin;
    const method = requestedMethod.trim().toUpperCase();
    if (!this.settings.allowMethods.includes(method)) return { verdict: "method-refused", method, headers };
    for (const header of (requestedHeaders ?? "").toLowerCase().split(",")) {
      const name = header.trim();
      if (name !== "" && !SIMPLE_HEADERS.has(name) && !this.allowedHeaders.has(name)) {
        return { verdict: "header-refused", header: name, headers };
      }
    }
    return { verdict: "answer", headers };
  }
  /** Headers for an actual request from `origin`, errors included; undefined for a disallowed origin. */
  actualRequestHeaders(origin) {
    if (!this.allows(origin)) return void 0;
    const headers = { "access-control-allow-origin": origin, vary: "Origin" };
    if (this.exposeHeadersValue !== "") headers["access-control-expose-headers"] = this.exposeHeadersValue;
    return headers;
  }
}
export {
  CorsPolicy
};
//# sourceMappingURL=cors-policy.js.map
