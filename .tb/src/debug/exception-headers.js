import { rawUrlEncode } from "./rawurlencode.js";
const MAX_MESSAGE_CHARACTERS = 2e3;
function cutMessage(message) {
  if (message.length <= MAX_MESSAGE_CHARACTERS) return message;
  let cut = "";
  let count = 0;
  for (const char of message) {
    if (count++ === MAX_MESSAGE_CHARACTERS) break;
    cut += char;
  }
  return cut;
}
function exceptionHeaders(message, site) {
  const headers = { "x-debug-exception": rawUrlEncode(cutMessage(message)) };
  if (site) headers["x-debug-exception-file"] = `${rawUrlEncode(site.file)}:${site.line}`;
  return headers;
}
export {
  cutMessage,
  exceptionHeaders
};
//# sourceMappingURL=exception-headers.js.map
