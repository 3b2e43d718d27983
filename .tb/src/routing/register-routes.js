function routerPath(definition) {
  let out = "";
  let last = 0;
  for (const match of definition.path.matchAll(/\{([^{}]+)\}/g)) {
    out += definition.path.slice(last, match.index).replaceAll(":", "::");
    const requirement = definition.requirements[match[1]];
    out += requirement === void 0 ? `:${match[1]}` : `:${match[1]}(^${requirement}$)`;
    last = match.index + match[0].length;
  }
  return out + definition.path.slice(last).replaceAll(":", "::");
}
const runHere = (invocation) => invocation.runHere();
function registerRoutes(app, definitions, execute = runHere) {
  for (const definition of definitions) {
    app.route({
      method: [...definition.methods],
      url: routerPath(definition),
      config: { routeName: definition.name, routePath: definition.path },
      handler: async (request, reply) => {
        const result = await execute(invocationOf(definition, request, reply));
        if (result !== void 0) return result;
        if (!reply.sent) reply.code(204).send();
        return reply;
      }
    });
  }
}
function invocationOf(definition, request, reply) {
  const signal = new RequestSignal(reply);
  return {
    definition,
    request,
    reply,
    abort: (reason) => signal.abort(reason),
    runHere: async () => definition.handler(contextFor(request, reply, signal))
  };
}
function contextFor(request, reply, signal) {
  return {
    params: request.params,
    query: request.query,
    body: request.body,
    files: request.uploadedFiles ?? [],
    request,
    reply,
    log: request.log,
    get signal() {
      return signal.signal;
    }
  };
}
class RequestSignal {
  constructor(reply) {
    this.reply = reply;
  }
  reply;
  controller;
  reason;
  get signal() {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.reason) {
      controller.abort(this.reason);
    } else {
      this.reply.raw.once("close", () => {
        if (!this.reply.raw.writableFinished) this.abort(new Error("The client closed the connection"));
      });
    }
    return controller.signal;
  }
  abort(reason) {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
export {
  registerRoutes,
  routerPath
};
//# sourceMappingURL=register-routes.js.map
