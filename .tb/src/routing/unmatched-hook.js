import { html } from "../errors/html.js";
import { requestTarget, requestUrl } from "../server/request-url.js";
import { noRouteFound, resolveUnmatched } from "./unmatched.js";
function unmatchedOutcome(matcher, request) {
  const { path, query } = requestTarget(request);
  return resolveUnmatched(matcher, { method: request.method, path, query, url: requestUrl(request), referer: request.headers.referer });
}
function noRouteError(request) {
  return noRouteFound({ method: request.method, url: requestUrl(request), referer: request.headers.referer });
}
function sendRedirect(reply, location) {
  return reply.code(301).header("location", location).header("content-type", "text/html; charset=UTF-8").send(html`<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><title>Redirecting to ${location}</title></head><body>Redirecting to <a href="${location}">${location}</a>.</body></html>`.value);
}
export {
  noRouteError,
  sendRedirect,
  unmatchedOutcome
};
//# sourceMappingURL=unmatched-hook.js.map
