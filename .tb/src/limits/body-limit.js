import { PayloadTooLargeHttpError } from "./limit-errors.js";
import { closeAfterResponse } from "./lingering-close.js";
function fastifyBodyLimit(limit) {
  return Number.isFinite(limit.bytes) ? limit.bytes : Number.MAX_SAFE_INTEGER;
}
function postBodyLimit(postMaxSize) {
  return { size: postMaxSize, setting: "POST_MAX_SIZE" };
}
function parsedBodyLimit(postMaxSize, parsedBodyMaxSize) {
  if (parsedBodyMaxSize.bytes >= postMaxSize.bytes) return postBodyLimit(postMaxSize);
  return { size: parsedBodyMaxSize, setting: "PARSED_BODY_MAX_SIZE", covers: "the limit for JSON and form bodies" };
}
function tooLargeMessage(limit, declared) {
  const size = declared === void 0 ? "" : ` (Content-Length: ${declared} bytes)`;
  const covers = limit.covers === void 0 ? "" : `, ${limit.covers}`;
  return `The request body${size} is larger than ${limit.setting} (${limit.size.text})${covers}`;
}
function installBodyLimit(scope, postMaxSize) {
  if (!Number.isFinite(postMaxSize.bytes)) return;
  const limit = postBodyLimit(postMaxSize);
  scope.addHook("onRequest", (request, reply, done) => {
    const declared = request.headers["content-length"];
    if (declared !== void 0 && Number(declared) > postMaxSize.bytes) {
      closeAfterResponse(request, reply);
      return done(new PayloadTooLargeHttpError(tooLargeMessage(limit, Number(declared))));
    }
    done();
  });
}
export {
  fastifyBodyLimit,
  installBodyLimit,
  parsedBodyLimit,
  postBodyLimit,
  tooLargeMessage
};
//# sourceMappingURL=body-limit.js.map
