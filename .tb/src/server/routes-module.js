import { pathToFileURL } from "node:url";
import { ConfigError } from "../config.js";
async function loadRoutesModule(file) {
  let module;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    const detail = error.code === "ERR_MODULE_NOT_FOUND" ? "module not found" : error.message;
    throw new ConfigError("ROUTES", `cannot load ${file}: ${detail}`);
  }
  const declare = module.default ?? module.routes;
  if (typeof declare !== "function") {
    throw new ConfigError("ROUTES", `${file} must export a routes declaration as default, e.g. export default defineRoutes((routes) => { ... })`);
  }
  const collectors = module.collectors ?? [];
  const isCollector = (value) => typeof value === "object" && value !== null && typeof value.name === "string" && typeof value.collect === "function";
  if (!Array.isArray(collectors) || !collectors.every(isCollector)) {
    throw new ConfigError("ROUTES", `${file}: the "collectors" export must be an array of collectors, each { name, collect(context) }`);
  }
  return { declare, collectors };
}
export {
  loadRoutesModule
};
//# sourceMappingURL=routes-module.js.map
