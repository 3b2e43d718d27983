class RouteMatcher {
  compiled;
  constructor(definitions) {
    this.compiled = definitions.map((definition) => ({
      definition,
      pattern: compile(definition.path, definition.requirements),
      loosePattern: compile(definition.path, {}),
      staticPrefix: definition.path.split("{")[0]
    }));
  }
  /** Methods of every route whose path matches, in declaration order, without repeats. */
  allowedMethods(path) {
    if (this.compiled.length === 0) return [];
    const decoded = decodePath(path);
    const allowed = /* @__PURE__ */ new Set();
    for (const route of this.compiled) {
      if (route.pattern.test(decoded)) for (const method of route.definition.methods) allowed.add(method);
    }
    return [...allowed];
  }
  /** True when a route answers `method` on `path` (GET routes answer HEAD). */
  answers(method, path) {
    const allowed = this.allowedMethods(path);
    return allowed.includes(method) || method === "HEAD" && allowed.includes("GET");
  }
  /** The routes that share the longest literal prefix with the path, and why each missed. */
  closest(method, path, limit = 5) {
    const decoded = decodePath(path);
    return this.compiled.map((route) => ({ route, shared: sharedPrefixLength(route.staticPrefix, decoded) })).filter(({ shared }) => shared > 1 || this.compiled.length <= limit).sort((a, b) => b.shared - a.shared).slice(0, limit).map(({ route }) => ({
      name: route.definition.name,
      path: route.definition.path,
      methods: route.definition.methods,
      reason: explainMiss(route, method, decoded)
    }));
  }
}
function explainMiss(route, method, path) {
  if (route.pattern.test(path)) {
    return `the path matches but ${method} is not among ${route.definition.methods.join(", ")}`;
  }
  const loose = route.loosePattern.exec(path);
  if (loose) {
    const values = loose.groups ?? {};
    const failed = Object.entries(route.definition.requirements).find(([name, requirement]) => !new RegExp(`^(?:${requirement})$`).test(values[name] ?? ""));
    if (failed) return `parameter "${failed[0]}" = "${values[failed[0]]}" does not match the requirement ${failed[1]}`;
  }
  return "the path does not match";
}
function sharedPrefixLength(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
function compile(path, requirements) {
  let source = "";
  let last = 0;
  for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
    source += escapeRegExp(path.slice(last, match.index));
    source += `(?<${match[1]}>${requirements[match[1]] ?? "[^/]+"})`;
    last = match.index + match[0].length;
  }
  return new RegExp(`^${source}${escapeRegExp(path.slice(last))}$`);
}
function decodePath(path) {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
export {
  RouteMatcher
};
//# sourceMappingURL=route-matcher.js.map
