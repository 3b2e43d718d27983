import { createKernel } from "../app.js";
import { loadTlsMaterial } from "./certificate.js";
import { OpenConnections } from "./connections.js";
import { loadRoutesModule } from "./routes-module.js";
import { Shutdown } from "./shutdown.js";
async function startService(config) {
  const tls = config.tls ? await loadTlsMaterial(config) : void 0;
  const module = config.routes ? await loadRoutesModule(config.routes) : void 0;
  const kernel = await createKernel({ config, tls, routes: module ? [module.declare] : [], routesModule: config.routes, collectors: module?.collectors ?? [] });
  const connections = new OpenConnections(kernel.app.server, config.maxConnections, kernel.app.log);
  const shutdown = new Shutdown(kernel.app, connections, config.shutdownTimeoutMs);
  await kernel.app.listen({ host: config.host, port: config.port, listenTextResolver: (address2) => `Listening on ${address2}` });
  const address = kernel.app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const scheme = config.tls ? "https" : "http";
  const defaultPort = scheme === "https" ? 443 : 80;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `${scheme}://${host}${port === defaultPort ? "" : `:${port}`}`;
  if (tls?.created) kernel.app.log.info(`Created a self-signed certificate for localhost: ${tls.certFile}`);
  return { kernel, url, stop: () => shutdown.close(), cutNow: (reason) => shutdown.cut(reason, " at once") };
}
export {
  startService
};
//# sourceMappingURL=start.js.map
