const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
class RouteDefinitionError extends Error {
  name = "RouteDefinitionError";
}
const PARAM = /\{([^{}]*)\}/g;
class Routes {
  definitions = [];
  on(methods, path, handler, options = {}) {
    const list = (typeof methods === "string" ? [methods] : [...methods]).map((method) => method.toUpperCase());
    const where = `route ${list.join("|")} ${path}`;
    if (list.length === 0) throw new RouteDefinitionError(`${where}: declare at least one method`);
    for (const method of list) {
      if (!HTTP_METHODS.includes(method)) throw new RouteDefinitionError(`${where}: unknown method "${method}"`);
    }
    if (!path.startsWith("/")) throw new RouteDefinitionError(`${where}: the path must start with "/"`);
    if (path.includes("*") || path.includes("?") || path.includes("#")) {
      throw new RouteDefinitionError(`${where}: "*", "?" and "#" cannot appear in a path`);
    }
    const names = [...path.matchAll(PARAM)].map((match) => match[1]);
    for (const name2 of names) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name2)) throw new RouteDefinitionError(`${where}: "{${name2}}" is not a valid parameter name`);
    }
    if (new Set(names).size !== names.length) throw new RouteDefinitionError(`${where}: a parameter appears twice`);
    if (/[{}]/.test(path.replace(PARAM, ""))) throw new RouteDefinitionError(`${where}: unbalanced "{" or "}"`);
    const requirements = {};
    for (const [name2, requirement] of Object.entries(options.requirements ?? {})) {
      if (!names.includes(name2)) throw new RouteDefinitionError(`${where}: requirement for unknown parameter "${name2}"`);
      requirements[name2] = checkRequirement(where, name2, requirement);
    }
    const twin = this.definitions.find((other) => other.path === path && other.methods.some((method) => list.includes(method)));
    if (twin) throw new RouteDefinitionError(`${where}: already declared by route "${twin.name}"`);
    const name = options.name ?? `${list.join("|")} ${path}`;
    const isolated = options.isolated === true;
    if (isolated && this.definitions.some((other) => other.isolated && other.name === name)) {
      throw new RouteDefinitionError(`${where}: another isolated route is named "${name}"; give one a distinct name`);
    }
    this.definitions.push({ name, methods: list, path, requirements, isolated, handler });
    return this;
  }
  get(path, handler, options) {
    return this.on("GET", path, handler, options);
  }
  post(path, handler, options) {
    return this.on("POST", path, handler, options);
  }
  put(path, handler, options) {
    return this.on("PUT", path, handler, options);
  }
  patch(path, handler, options) {
    return this.on("PATCH", path, handler, options);
  }
  delete(path, handler, options) {
    return this.on("DELETE", path, handler, options);
  }
}
function checkRequirement(where, name, requirement) {
  let source = typeof requirement === "string" ? requirement : requirement.source;
  source = source.replace(/^\^/, "").replace(/(?<!\\)\$$/, "");
  let groups;
  try {
    groups = new RegExp(`${source}|`).exec("").length - 1;
  } catch (error) {
    throw new RouteDefinitionError(`${where}: requirement for "${name}" is not a valid regular expression: ${error.message}`);
  }
  if (groups > 0) throw new RouteDefinitionError(`${where}: requirement for "${name}" has a capturing group; write (?:...) instead`);
  return source;
}
function defineRoutes(declare) {
  return declare;
}
export {
  HTTP_METHODS,
  RouteDefinitionError,
  Routes,
  defineRoutes
};
//# sourceMappingURL=routes.js.map
