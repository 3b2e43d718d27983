import { tooLargeMessage } from "./body-limit.js";
import { bodyStalledError, watchBodyStall } from "./body-timeout.js";
import { PayloadTooLargeHttpError } from "./limit-errors.js";
function readBody(headers, payload, limit, timeoutMs) {
  const declared = Number(headers["content-length"]);
  if (declared > limit.size.bytes) return Promise.reject(new PayloadTooLargeHttpError(tooLargeMessage(limit, declared)));
  return new Promise((resolve, reject) => {
    const chunks = [];
    let received = 0;
    let settled = false;
    const finish = (error) => {
      if (settled) return;
      settled = true;
      stall.stop();
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      payload.removeListener("close", onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, received));
    };
    const onData = (chunk) => {
      received += chunk.length;
      if (received > limit.size.bytes) return finish(new PayloadTooLargeHttpError(tooLargeMessage(limit)));
      chunks.push(chunk);
      stall.refresh();
    };
    const onEnd = () => finish();
    const onError = (error) => finish(Object.assign(error, { statusCode: 400 }));
    const onClose = () => finish(Object.assign(new Error("The client closed the connection before the end of the body"), { statusCode: 400 }));
    const stall = watchBodyStall(timeoutMs, () => finish(bodyStalledError(timeoutMs)));
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onError);
    payload.on("close", onClose);
  });
}
export {
  readBody
};
//# sourceMappingURL=body-reader.js.map
