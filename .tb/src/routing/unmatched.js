import { MethodNotAllowedHttpError, NotFoundHttpError } from "../errors/http-errors.js";
import { encodeTarget } from "../server/request-url.js";
function resolveUnmatched(matcher, request) {
  const { method, path } = request;
  const allowed = matcher.allowedMethods(path);
  const answers = allowed.includes(method) || method === "HEAD" && allowed.includes("GET");
  if ((method === "GET" || method === "HEAD") && !answers && path !== "/") {
    const twin = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
    if (matcher.answers("GET", twin)) {
      return { redirectTo: request.url.slice(0, request.url.length - path.length) + encodeTarget(twin + request.query) };
    }
  }
  if (allowed.length > 0 && !answers) {
    const list = allowed.join(", ");
    return {
      error: new MethodNotAllowedHttpError(allowed, `No route found for "${method} ${request.url}": Method Not Allowed (Allow: ${list})`)
    };
  }
  return { error: noRouteFound(request) };
}
function noRouteFound({ method, url, referer }) {
  const from = referer === void 0 ? "" : ` (from "${referer}")`;
  return new NotFoundHttpError(`No route found for "${method} ${url}"${from}`);
}
export {
  noRouteFound,
  resolveUnmatched
};
//# sourceMappingURL=unmatched.js.map
