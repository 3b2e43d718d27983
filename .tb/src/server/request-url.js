const DEFAULT_PORTS = { http: "80", https: "443" };
const VALID_HOST = /^(?:[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
function isValidHost(host) {
  return VALID_HOST.test(host);
}
function urlHost(configured) {
  if (configured === "0.0.0.0" || configured === "::") return "";
  return configured.includes(":") ? `[${configured}]` : configured;
}
function requestHost(request) {
  const host = request.host;
  return host === "" && request.headers.host === void 0 ? ownHost(request) : host;
}
function ownHost(request) {
  const socket = request.raw.socket;
  const name = request.serverHost || urlHost(socket?.localAddress ?? "") || "localhost";
  return socket?.localPort === void 0 ? name : `${name}:${socket.localPort}`;
}
const NOT_IN_TARGET = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu;
function encodeTarget(target) {
  return target.replace(NOT_IN_TARGET, (character) => {
    const code = character.codePointAt(0);
    const bytes = code <= 255 ? [code] : [...Buffer.from(character, "utf8")];
    return bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  });
}
function requestScheme(request) {
  const claimed = request.protocol;
  if (claimed === "https" || claimed === "http") return claimed;
  const lower = claimed?.toLowerCase();
  if (lower === "https" || lower === "http") return lower;
  return request.raw.socket?.encrypted ? "https" : "http";
}
function requestOrigin(request) {
  const scheme = requestScheme(request);
  let host = requestHost(request);
  if (!isValidHost(host)) host = ownHost(request);
  const colon = host.lastIndexOf(":");
  if (colon > host.lastIndexOf("]") && host.slice(colon + 1) === DEFAULT_PORTS[scheme]) host = host.slice(0, colon);
  return `${scheme}://${host}`;
}
function requestTarget(request) {
  let target = request.raw.url ?? "/";
  if (!target.startsWith("/") && target !== "*") {
    const afterScheme = target.indexOf("://");
    const slash = afterScheme === -1 ? -1 : target.indexOf("/", afterScheme + 3);
    target = slash === -1 ? "/" : target.slice(slash);
  }
  const mark = target.indexOf("?");
  return mark === -1 ? { path: target, query: "" } : { path: target.slice(0, mark), query: target.slice(mark) };
}
function requestUrl(request) {
  return requestOrigin(request) + requestTarget(request).path;
}
function requestUrlWithQuery(request) {
  const { path, query } = requestTarget(request);
  return requestOrigin(request) + path + query;
}
export {
  encodeTarget,
  isValidHost,
  requestHost,
  requestOrigin,
  requestScheme,
  requestTarget,
  requestUrl,
  requestUrlWithQuery,
  urlHost
};
//# sourceMappingURL=request-url.js.map
