import { requestTarget } from "../../server/request-url.js";
function routingCollector(matcher) {
  return {
    name: "routing",
    collect({ request, reply }) {
      const { path } = requestTarget(request);
      const config = request.routeOptions.config ?? {};
      if (!request.is404 && config.routePath !== void 0) {
        return {
          path,
          matched: { name: config.routeName ?? null, path: config.routePath, methods: [request.routeOptions.method].flat().map(String) },
          params: { ...request.params }
        };
      }
      const routes = matcher();
      const location = reply.getHeader("location");
      return {
        path,
        matched: null,
        allowedMethods: [...routes?.allowedMethods(path) ?? []],
        closest: routes?.closest(request.method, path) ?? [],
        redirectedTo: reply.statusCode >= 300 && reply.statusCode < 400 && typeof location === "string" ? location : null
      };
    }
  };
}
export {
  routingCollector
};
//# sourceMappingURL=routing.js.map
