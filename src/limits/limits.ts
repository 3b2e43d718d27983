/**
 * The per-request limits, composed for the kernel: the hooks of routed requests (heap
 * guard, declared body size), the body parsers (size, timeout, rate, JSON depth), the uploads of
 * routes API routes, the executor that runs a routes API handler (in this process under a
 * deadline, or isolated in a worker process), the deadline of native handlers, and the
 * closing of connections whose body was cut. Unmatched requests never reach any of it.
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerAsyncHookHandler,
  RouteOptions,
} from 'fastify';
import type { ByteSize, Config } from '../config/index.js';
import { routesApiDefinitionOf, type Invocation, type RouteExecutor } from '../routing/register-routes.js';
import { RouteDefinitionError, type RouteDefinition } from '../routing/routes.js';
import { bodyLimitHook } from './body-limit.js';
import { installBodyParsers } from './body-parsers.js';
import { RunningHandlers, runInProcess, withDeadline } from './execution-time.js';
import { HeapGuard } from './heap-guard.js';
import type { IsolatedInput } from './isolation/protocol.js';
import { WorkerPool } from './isolation/worker-pool.js';
import { PayloadTooLargeHttpError, RequestTimeoutHttpError } from './limit-errors.js';
import { closeAfterResponse } from './lingering-close.js';
import { prepareUploads, uploadsHook } from './uploads.js';

type LimitSettings = Pick<
  Config,
  | 'postMaxSize'
  | 'bodyTimeoutMs'
  | 'bodyMinRate'
  | 'uploadMaxFilesize'
  | 'maxFileUploads'
  | 'maxExecutionTime'
  | 'memoryLimit'
  | 'isolatedWorkers'
> & {
  /** PARSED_BODY_MAX_SIZE, or where it is not set the default the kernel's caller gives. */
  parsedBodyMaxSize: ByteSize;
};

interface LimitsOptions {
  settings: LimitSettings;
  definitions: readonly RouteDefinition[];
  /** The routes module isolated workers import; required when a route is isolated. */
  routesModule: string | undefined;
  log: FastifyBaseLogger;
}

export class Limits {
  private constructor(
    private readonly settings: LimitSettings,
    private readonly guard: HeapGuard,
    private readonly handlers: RunningHandlers,
    private readonly pool: WorkerPool | undefined,
  ) {}

  /** Starts the heap guard, and the worker pool when a route is isolated. */
  static async create({ settings, definitions, routesModule, log }: LimitsOptions): Promise<Limits> {
    const isolated = definitions.filter((definition) => definition.isolated);
    let pool: WorkerPool | undefined;
    if (isolated.length > 0) {
      if (!routesModule) {
        throw new RouteDefinitionError(
          `route ${isolated[0]!.name} is isolated: its worker processes import the module that declares it, so the kernel needs that module's path (ROUTES for npm start, the plugin's routesModule option)`,
        );
      }
      pool = new WorkerPool({
        routesModule,
        routes: isolated.map((definition) => definition.name),
        size: settings.isolatedWorkers,
        memoryLimit: settings.memoryLimit.bytes,
        log,
      });
      try {
        await pool.start();
      } catch (error) {
        await pool.close();
        throw new RouteDefinitionError(`isolated routes cannot run: ${(error as Error).message}`);
      }
    }
    const handlers = new RunningHandlers(settings.maxExecutionTime);
    return new Limits(settings, new HeapGuard({ log, running: handlers }), handlers, pool);
  }

  /**
   * The `onRequest` hooks of routed requests, in order: the heap guard (503 near the heap
   * limit), then a declared length over POST_MAX_SIZE (413, before the body is touched).
   */
  get requestHooks(): onRequestHookHandler[] {
    const guard = this.guard;
    const heapGuard: onRequestHookHandler = function heapGuardAdmission(_request, _reply, done) {
      try {
        guard.admit();
      } catch (error) {
        return done(error as Error);
      }
      done();
    };
    const bodyLimit = bodyLimitHook(this.settings.postMaxSize);
    return bodyLimit ? [heapGuard, bodyLimit] : [heapGuard];
  }

  /** The JSON, form and text parsers, under the size limits, BODY_TIMEOUT and BODY_MIN_RATE, for every route of `app`. */
  installParsers(app: FastifyInstance): void {
    installBodyParsers(app, this.settings);
  }

  /** Readies `scope`, whose routes API routes can have a body, for multipart uploads ({@link uploadsHook} reads them). */
  async prepareUploads(scope: FastifyInstance): Promise<void> {
    await prepareUploads(scope, this.settings);
  }

  /** The preHandler of those scopes: multipart uploads, saved to temporary files. */
  get uploadsHook(): preHandlerAsyncHookHandler {
    return uploadsHook(this.settings);
  }

  readonly execute: RouteExecutor = (invocation) =>
    invocation.definition.isolated ? this.runIsolated(invocation) : runInProcess(invocation, this.handlers);

  /** The `onRoute` hook: a native route's handler runs under MAX_EXECUTION_TIME (routes API ones have the executor). */
  readonly adoptRoute = (options: RouteOptions): void => {
    const seconds = this.settings.maxExecutionTime;
    if (seconds <= 0 || routesApiDefinitionOf(options.config as Record<symbol, unknown> | undefined)) return;
    // What is not a function is left for Fastify to refuse, as it would without vigil.
    if (typeof options.handler !== 'function') return;
    options.handler = withDeadline(options.handler, this.handlers);
  };

  /** Readies the answer to an error: a body cut short (too large, stalled) closes its connection with care. */
  explain(error: unknown, request: FastifyRequest, reply: FastifyReply): unknown {
    if (error instanceof PayloadTooLargeHttpError || error instanceof RequestTimeoutHttpError)
      closeAfterResponse(request, reply);
    return error;
  }

  /** The `onClose` hook: the heap guard, the deadlines and the worker pool stopped. */
  async close(): Promise<void> {
    this.guard.close();
    this.handlers.close();
    await this.pool?.close();
  }

  private async runIsolated({ definition, request, reply }: Invocation): Promise<unknown> {
    const job = this.pool!.run(definition.name, isolatedInput(request), {
      timeLimitSeconds: this.settings.maxExecutionTime,
      log: request.log,
    });
    // A client that went away releases the worker at once.
    const onClose = () => {
      if (!reply.raw.writableFinished) job.cancel(new Error('The client closed the connection'));
    };
    reply.raw.once('close', onClose);
    try {
      return await job.result;
    } finally {
      reply.raw.removeListener('close', onClose);
    }
  }
}

function isolatedInput(request: FastifyRequest): IsolatedInput {
  return {
    params: request.params as Record<string, string>,
    query: { ...(request.query as IsolatedInput['query']) },
    body: request.body,
    files: request.vigil?.uploadedFiles ?? [],
    method: request.method,
    url: request.raw.url ?? '/',
    headers: { ...request.headers },
  };
}
