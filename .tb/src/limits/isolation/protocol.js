import { adoptFrames, framesOf } from "../../debug/stack-trace.js";
import { HttpError } from "../../errors/http-errors.js";
function serializeError(thrown) {
  const error = thrown instanceof Error ? thrown : new Error(`Non-error thrown: ${String(thrown)}`);
  const { status, statusCode, code, headers } = error;
  const httpStatus = [status, statusCode].find((value) => typeof value === "number" && value >= 400 && value <= 599);
  return {
    name: error.name,
    message: error.message,
    frames: framesOf(error).map(({ function: name, file, line, column }) => ({ function: name, file, line, column })),
    status: httpStatus,
    code: typeof code === "string" ? code : void 0,
    headers: headers && typeof headers === "object" ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])) : void 0
  };
}
function reviveError(data) {
  const error = new HttpError(data.status ?? 500, data.message, data.code ?? "VIGIL_ERR_INTERNAL", data.headers ? { headers: data.headers } : {});
  error.name = data.name;
  adoptFrames(error, Array.isArray(data.frames) ? data.frames.filter(isFrame) : []);
  return error;
}
function isFrame(frame) {
  const { function: name, file, line, column } = frame ?? {};
  return typeof name === "string" && typeof file === "string" && Number.isInteger(line) && Number.isInteger(column);
}
export {
  reviveError,
  serializeError
};
//# sourceMappingURL=protocol.js.map
