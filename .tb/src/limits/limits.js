import { RouteDefinitionError } from "../routing/routes.js";
import { installBodyLimit } from "./body-limit.js";
import { installBodyParsers } from "./body-parsers.js";
import { runInProcess } from "./execution-time.js";
import { HeapGuard } from "./heap-guard.js";
import { WorkerPool } from "./isolation/worker-pool.js";
import { PayloadTooLargeHttpError, RequestTimeoutHttpError } from "./limit-errors.js";
import { closeAfterResponse } from "./lingering-close.js";
import { installUploads } from "./uploads.js";
class Limits {
  constructor(settings, guard, pool) {
    this.settings = settings;
    this.guard = guard;
    this.pool = pool;
  }
  settings;
  guard;
  pool;
  /** Starts the heap guard, and the worker pool when a route is isolated. */
  static async create({ settings, definitions, routesModule, log }) {
    const isolated = definitions.filter((definition) => definition.isolated);
    let pool;
    if (isolated.length > 0) {
      if (!routesModule) {
        throw new RouteDefinitionError(`route ${isolated[0].name} is isolated: its workers import the routes module, so the kernel needs its path (ROUTES)`);
      }
      pool = new WorkerPool({ routesModule, routes: isolated.map((definition) => definition.name), size: settings.isolatedWorkers, memoryLimit: settings.memoryLimit.bytes, log });
      try {
        await pool.start();
      } catch (error) {
        await pool.close();
        throw new RouteDefinitionError(`isolated routes cannot run: ${error.message}`);
      }
    }
    return new Limits(settings, new HeapGuard({ log }), pool);
  }
  /** Hooks the limits into the scope that holds the matched routes. */
  async install(scope) {
    scope.addHook("onRequest", (_request, _reply, done) => {
      try {
        this.guard.admit();
      } catch (error) {
        return done(error);
      }
      done();
    });
    installBodyLimit(scope, this.settings.postMaxSize);
    installBodyParsers(scope, this.settings);
    await installUploads(scope, this.settings);
  }
  execute = (invocation) => invocation.definition.isolated ? this.runIsolated(invocation) : runInProcess(invocation, this.settings.maxExecutionTime, this.guard);
  /** Readies the answer to an error: a body cut short (too large, stalled) closes its connection with care. */
  explain(error, request, reply) {
    if (error instanceof PayloadTooLargeHttpError || error instanceof RequestTimeoutHttpError) closeAfterResponse(request, reply);
    return error;
  }
  async close() {
    this.guard.close();
    await this.pool?.close();
  }
  async runIsolated({ definition, request, reply }) {
    const job = this.pool.run(definition.name, isolatedInput(request), { timeLimitSeconds: this.settings.maxExecutionTime, log: request.log });
    const onClose = () => {
      if (!reply.raw.writableFinished) job.cancel(new Error("The client closed the connection"));
    };
    reply.raw.once("close", onClose);
    try {
      return await job.result;
    } finally {
      reply.raw.removeListener("close", onClose);
    }
  }
}
function isolatedInput(request) {
  return {
    params: request.params,
    query: { ...request.query },
    body: request.body,
    files: request.uploadedFiles ?? [],
    method: request.method,
    url: request.raw.url ?? "/",
    headers: { ...request.headers }
  };
}
export {
  Limits
};
//# sourceMappingURL=limits.js.map
