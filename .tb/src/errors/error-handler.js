import { validateHeaderName, validateHeaderValue } from "node:http";
import { exceptionHeaders } from "../debug/exception-headers.js";
import { framesOf, raiseSiteIn } from "../debug/stack-trace.js";
import { requestUrlWithQuery } from "../server/request-url.js";
import { describeError, reasonPhrase } from "./http-errors.js";
import { negotiateErrorFormat } from "./negotiate.js";
import { renderDebugHtml, renderProductionHtml } from "./render-html.js";
import { renderProblemJson, renderProblemXml } from "./render-problem.js";
import { renderText } from "./render-text.js";
const CONTENT_TYPES = {
  html: "text/html; charset=UTF-8",
  json: "application/problem+json",
  xml: "application/problem+xml",
  text: "text/plain; charset=UTF-8"
};
function createErrorResponder({ debug }) {
  return function respondWithError(thrown, request, reply) {
    const described = describeError(thrown);
    if (described.status >= 500) request.log.error({ err: described.error }, described.message);
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy(described.error);
      return;
    }
    const frames = debug ? framesOf(described.error) : [];
    const token = request.debugToken ?? void 0;
    const view = {
      status: described.status,
      title: reasonPhrase(described.status),
      message: described.message,
      className: described.className,
      code: described.code,
      method: request.method,
      url: debug ? requestUrlWithQuery(request) : "",
      frames,
      site: raiseSiteIn(frames),
      token,
      // The link the response already carries, built once when the token was issued.
      reportUrl: token ? reply.getHeader("x-debug-token-link") : void 0
    };
    const format = negotiateErrorFormat(request.headers.accept);
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (sendable(name, value)) continue;
      reply.removeHeader(name);
      warnUnsendable(request, name);
    }
    reply.raw.statusMessage = "";
    reply.code(view.status);
    for (const [name, value] of Object.entries(described.headers)) {
      if (sendable(name, value)) reply.header(name, value);
      else warnUnsendable(request, name);
    }
    reply.header("content-type", CONTENT_TYPES[format]);
    reply.header("cache-control", "no-cache, private");
    const vary = reply.getHeader("vary");
    reply.header("vary", vary === void 0 ? "Accept" : `${String(vary)}, Accept`);
    if (debug) reply.headers(exceptionHeaders(view.message, view.site));
    reply.send(debug ? asPayload(format, render(format, view, true)) : productionBody(format, view));
  };
}
function sendable(name, value) {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
function warnUnsendable(request, name) {
  request.log.warn(`the response header "${name}" has a value Node cannot send; the error response goes without it`);
}
function asPayload(format, body) {
  return format === "json" ? Buffer.from(body) : body;
}
const productionBodies = /* @__PURE__ */ new Map();
function productionBody(format, view) {
  const key = `${format}${view.status}`;
  let body = productionBodies.get(key);
  if (body === void 0) {
    body = Buffer.from(render(format, view, false));
    productionBodies.set(key, body);
  }
  return body;
}
function render(format, view, debug) {
  switch (format) {
    case "json":
      return renderProblemJson(view, debug);
    case "xml":
      return renderProblemXml(view, debug);
    case "text":
      return renderText(view, debug);
    default:
      return debug ? renderDebugHtml(view) : renderProductionHtml(view);
  }
}
export {
  createErrorResponder
};
//# sourceMappingURL=error-handler.js.map
