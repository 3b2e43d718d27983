import { requestTarget, requestUrlWithQuery } from "../../server/request-url.js";
import { queryParameters } from "../redact.js";
const connections = /* @__PURE__ */ new WeakMap();
function connectionOf(connection) {
  let info = connections.get(connection);
  if (info === void 0) {
    const socket = connection;
    info = {
      remoteAddress: socket.remoteAddress ?? null,
      remotePort: socket.remotePort ?? null,
      tls: socket.encrypted ? { version: socket.getProtocol?.() ?? null, cipher: socket.getCipher?.()?.name ?? null, servername: socket.servername || null } : null
    };
    connections.set(connection, info);
  }
  return info;
}
const requestCollector = {
  name: "request",
  start({ request }) {
    connectionOf(request.raw.socket);
  },
  collect({ request, profile, redactor }) {
    const declaredLength = request.headers["content-length"];
    return {
      method: request.method,
      // Secrets inside the URL and headers' text are redacted when the report is encoded.
      url: requestUrlWithQuery(request),
      query: queryParameters(requestTarget(request).query.slice(1), redactor),
      headers: redactor.headers(request.headers),
      // Declared size; a chunked body has none, and an unrouted request's body is never read.
      bodySize: declaredLength === void 0 ? null : Number(declaredLength),
      bodyRead: request.raw.complete,
      ip: profile.ip,
      ...connectionOf(request.raw.socket),
      protocol: `HTTP/${request.raw.httpVersion}`
    };
  }
};
export {
  requestCollector
};
//# sourceMappingURL=request.js.map
