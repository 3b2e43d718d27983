import { pathToFileURL } from "node:url";
import { installStackTraces } from "../../debug/stack-trace.js";
import { Routes } from "../../routing/routes.js";
import { serializeError } from "./protocol.js";
const [routesModule, limitArgument] = process.argv.slice(2);
const memoryLimit = Number(limitArgument);
const SELF_CHECK_MS = 20;
const SETTLE_MS = 20;
const send = (message) => process.send(message);
const collectGarbage = globalThis.gc;
process.on("disconnect", () => process.exit(0));
installStackTraces();
const module = await import(pathToFileURL(routesModule).href);
const declare = module.default ?? module.routes;
const routes = new Routes();
await declare(routes);
const handlers = new Map(routes.definitions.filter((route) => route.isolated).map((route) => [route.name, route.handler]));
process.on("message", (message) => {
  if (message.type === "run") void run(message);
});
send({ type: "ready", routes: [...handlers.keys()] });
async function run({ id, route, input }) {
  const baseline = allocated();
  const check = Number.isFinite(memoryLimit) ? setInterval(() => {
    const bytes = allocated() - baseline;
    if (bytes > memoryLimit) send({ type: "memory", id, bytes });
  }, SELF_CHECK_MS) : void 0;
  try {
    const handler = handlers.get(route);
    if (!handler) throw new Error(`No isolated route is named "${route}" in ${routesModule}`);
    const value = await handler({ ...input, log: logFor(id) });
    const bytes = allocated() - baseline;
    if (bytes > memoryLimit) send({ type: "memory", id, bytes });
    else sendResult(id, value);
  } catch (error) {
    send({ type: "error", id, error: serializeError(error) });
  } finally {
    clearInterval(check);
  }
  collectGarbage?.();
  setTimeout(() => send({ type: "settled", id }), SETTLE_MS);
}
function sendResult(id, value) {
  try {
    send({ type: "result", id, value });
  } catch (error) {
    throw new TypeError(`An isolated handler must return data that can be copied to the service (text, a Buffer, plain objects): ${error.message}`);
  }
}
function allocated() {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}
function logFor(id) {
  const at = (level) => (message, details) => send({ type: "log", id, level, message, ...details ? { details } : {} });
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
//# sourceMappingURL=worker-process.js.map
