/**
 * Hands declared routes to Fastify's router (find-my-way): `{id}` with a requirement
 * becomes `:id(^...$)`, and each handler is called with a {@link RouteContext} through the
 * executor the kernel composes (the limits decide how and how long a handler runs).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { span } from '../http/request-scope.js';
import type { StackFrame } from '../debug/stack-trace.js';
import { isError, ThrownValueError } from '../errors/thrown-value.js';
import type { RouteContext, RouteDefinition, RouteHandler } from './routes.js';

/** find-my-way syntax for a declared path: parameters as `:name(regex)`, literal colons doubled. */
export function routerPath(definition: Pick<RouteDefinition, 'path' | 'requirements'>): string {
  let out = '';
  let last = 0;
  for (const match of definition.path.matchAll(/\{([^{}]+)\}/g)) {
    out += definition.path.slice(last, match.index).replaceAll(':', '::');
    const requirement = definition.requirements[match[1]!];
    out += requirement === undefined ? `:${match[1]}` : `:${match[1]}(^${requirement}$)`;
    last = match.index + match[0].length;
  }
  return out + definition.path.slice(last).replaceAll(':', '::');
}

const ROUTES_API_DEFINITION = Symbol('vigil.routesApiDefinition');

/** The routes API declaration a route was registered from, read off its options' config. */
export function routesApiDefinitionOf(
  config: Readonly<Record<string | symbol, unknown>> | undefined,
): RouteDefinition | undefined {
  return config?.[ROUTES_API_DEFINITION] as RouteDefinition | undefined;
}

/** Whether a route can be sent a body: Fastify reads none for GET and HEAD. */
function canHaveBody(definition: Pick<RouteDefinition, 'methods'>): boolean {
  return definition.methods.some((method) => method !== 'GET' && method !== 'HEAD');
}

/** The definitions in declaration order, cut where {@link canHaveBody} changes. */
export function runsByBody(
  definitions: readonly RouteDefinition[],
): { body: boolean; definitions: RouteDefinition[] }[] {
  const runs: { body: boolean; definitions: RouteDefinition[] }[] = [];
  for (const definition of definitions) {
    const body = canHaveBody(definition);
    const last = runs.at(-1);
    if (last?.body === body) last.definitions.push(definition);
    else runs.push({ body, definitions: [definition] });
  }
  return runs;
}

/** One call of a route's handler, as an executor sees it. */
export interface Invocation {
  definition: RouteDefinition;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Fires the handler's signal with `reason` (a limit stopped the request). */
  abort(reason: Error): void;
  /** Calls the handler in this process with its {@link RouteContext}: its value, or a promise of it. */
  runHere(): unknown;
}

/** Runs an invocation: what the handler returned, or a promise of it. */
export type RouteExecutor = (invocation: Invocation) => unknown;

const runHere: RouteExecutor = (invocation) => invocation.runHere();

export function registerRoutes(
  app: FastifyInstance,
  definitions: readonly RouteDefinition[],
  execute: RouteExecutor = runHere,
): void {
  for (const definition of definitions) {
    app.route({
      method: [...definition.methods],
      url: routerPath(definition),
      config: { [ROUTES_API_DEFINITION]: definition },
      ...(definition.response === undefined ? {} : { schema: { response: definition.response } }),
      // A handler that answers at once is answered at once: no promise is made for it.
      handler: (request, reply) => {
        const result = execute(new HandlerInvocation(definition, request, reply));
        if (isPromiseLike(result)) return Promise.resolve(result).then((value) => answered(value, reply) ?? reply);
        return answered(result, reply);
      },
    });
  }
}

/** What Fastify sends for a handler's value; a handler that returns nothing and sent nothing answered "no content". */
function answered(result: unknown, reply: FastifyReply): unknown {
  if (result !== undefined) return result;
  if (!reply.sent) reply.code(204).send();
  return undefined;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

class HandlerInvocation implements Invocation {
  readonly #signal: RequestSignal;

  constructor(
    readonly definition: RouteDefinition,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
  ) {
    this.#signal = new RequestSignal(reply);
  }

  abort(reason: Error): void {
    this.#signal.abort(reason);
  }

  runHere(): unknown {
    const definition = this.definition;
    let result: unknown;
    try {
      result = (definition.handler as RouteHandler)(new HandlerContext(this.request, this.reply, this.#signal));
    } catch (thrown) {
      throw thrownError(thrown, definition);
    }
    return isPromiseLike(result) ? settledHandler(result, definition) : result;
  }
}

/** An async function: a trace taken after the handler's await keeps this frame (the kernel's part of the way). */
async function settledHandler(pending: PromiseLike<unknown>, definition: RouteDefinition): Promise<unknown> {
  try {
    return await pending;
  } catch (thrown) {
    throw thrownError(thrown, definition);
  }
}

function thrownError(thrown: unknown, definition: RouteDefinition): Error {
  return isError(thrown) ? thrown : new ThrownValueError(thrown, handlerSite(definition));
}

/**
 * Where a value that is no Error was thrown, as near as can be known: it carries no stack,
 * and the handler's frame is gone by now, so the route's declaration stands for it.
 */
export function handlerSite(definition: Pick<RouteDefinition, 'name' | 'declaredAt'>): StackFrame | undefined {
  return definition.declaredAt && { ...definition.declaredAt, function: `handler of ${definition.name}` };
}

/**
 * A handler's context, a class so that `signal` is a getter on its prototype: an object
 * literal with a getter gets a map of its own per request, which only a full collection frees.
 */
class HandlerContext implements RouteContext {
  readonly params: Record<string, string>;
  readonly query: RouteContext['query'];
  readonly body: unknown;
  readonly files: RouteContext['files'];
  readonly log: RouteContext['log'];
  readonly span = span;
  readonly #signal: RequestSignal;

  constructor(
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    signal: RequestSignal,
  ) {
    this.params = request.params as Record<string, string>;
    this.query = request.query as RouteContext['query'];
    this.body = request.body;
    this.files = request.vigil?.uploadedFiles ?? [];
    this.log = request.log;
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    return this.#signal.signal;
  }
}

/**
 * A handler's AbortSignal, created on first use (most handlers never look): it fires when
 * the client goes away, or when a limit aborts the request before the handler looked.
 */
class RequestSignal {
  private controller: AbortController | undefined;
  private reason: Error | undefined;

  constructor(private readonly reply: FastifyReply) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.reason) {
      controller.abort(this.reason);
    } else {
      // The response closes before it finished only when the connection went away.
      this.reply.raw.once('close', () => {
        if (!this.reply.raw.writableFinished) this.abort(new Error('The client closed the connection'));
      });
    }
    return controller.signal;
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
