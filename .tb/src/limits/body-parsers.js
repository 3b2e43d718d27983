import { BadRequestHttpError } from "../errors/http-errors.js";
import { parsedBodyLimit, postBodyLimit } from "./body-limit.js";
import { readBody } from "./body-reader.js";
import { parseForm } from "./form-fields.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.js";
function installBodyParsers(scope, settings) {
  const parsed = parsedBodyLimit(settings.postMaxSize, settings.parsedBodyMaxSize);
  const text = postBodyLimit(settings.postMaxSize);
  const timeout = settings.bodyTimeoutMs;
  const parseJson = scope.getDefaultJsonParser("error", "error");
  const json = async (request, payload) => {
    const body = (await readBody(request.headers, payload, parsed, timeout)).toString("utf8");
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      throw new BadRequestHttpError(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (the limit for parsed bodies)`, "VIGIL_ERR_JSON_TOO_DEEP");
    }
    return new Promise((resolve, reject) => parseJson(request, body, (error, value) => error ? reject(error) : resolve(value)));
  };
  const form = async (request, payload) => parseForm((await readBody(request.headers, payload, parsed, timeout)).toString("utf8"));
  const plain = async (request, payload) => (await readBody(request.headers, payload, text, timeout)).toString("utf8");
  scope.addContentTypeParser("application/json", json);
  scope.addContentTypeParser("application/x-www-form-urlencoded", form);
  scope.addContentTypeParser("text/plain", plain);
}
export {
  installBodyParsers
};
//# sourceMappingURL=body-parsers.js.map
