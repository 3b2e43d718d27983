/**
 * The routes API: how an application declares what it answers, each route in process or, declared
 * `{ isolated: true }`, in a worker process with its own memory limit.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { framesOf, type StackFrame } from '../debug/stack-trace.js';
import { requirementsInOrder, routeShape } from './route-shape.js';

/** One file of a multipart upload, saved to a temporary file. */
export interface UploadedFile {
  /** The form field it came in. */
  field: string;
  /** The name the client gave it (never used on disk). */
  filename: string;
  mimetype: string;
  /** Bytes received. */
  size: number;
  /** Absolute path of the temporary file. */
  path: string;
}

declare module '../http/request-state.js' {
  interface RequestState {
    /** The files of a multipart body, once saved (by the limits); absent for other requests. */
    uploadedFiles?: UploadedFile[] | null;
  }
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** `'/items/{id}/{part}'` → `'id' | 'part'` */
type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;
export type RouteParams<Path extends string> = { [Name in ParamNames<Path>]: string };

export interface RouteContext<Path extends string = string> {
  /** Path parameters, percent-decoded, already checked against their requirements. */
  params: RouteParams<Path>;
  query: Record<string, string | string[] | undefined>;
  /** The parsed body (JSON, form or text; a multipart body's fields), undefined when there is none. */
  body: unknown;
  /** The files of a multipart body, already on disk; removed when the response closes. */
  files: readonly UploadedFile[];
  request: FastifyRequest;
  reply: FastifyReply;
  /** Fires when the request is abandoned: the client went away or a limit stopped it. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
  /**
   * Measures a step of the handler: runs `fn` and returns what it returns (a promise ends
   * the step when it settles; a throw or rejection is recorded and passed on). In debug
   * mode each step is a span in the performance panel's waterfall, nested in the span it
   * runs in; a report keeps 256. Otherwise it only runs `fn`.
   *
   * @example
   * ```ts
   * routes.get('/orders', ({ span }) => span('load orders', () => db.orders()));
   * ```
   */
  span<T>(name: string, fn: () => T): T;
}

/**
 * What an isolated handler gets: everything that can cross into its worker process.
 * It returns what to send like any handler (not a stream); `reply` and `request` stay behind.
 */
export interface IsolatedRouteContext<Path extends string = string> {
  params: RouteParams<Path>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  files: readonly UploadedFile[];
  method: string;
  /** Path and query string as the client sent them. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Lines go to the service's log, with the request's id. */
  log: IsolatedLog;
}

type IsolatedLogFn = (message: string, details?: Record<string, unknown>) => void;
export type IsolatedLog = Record<'debug' | 'info' | 'warn' | 'error', IsolatedLogFn>;

/**
 * Returns what to send (a string is text/plain, an object JSON, a Buffer or stream as is), or uses
 * `reply` itself. Whatever it throws goes to the error pipeline.
 */
export type RouteHandler<Path extends string = string> = (context: RouteContext<Path>) => unknown;
export type IsolatedRouteHandler<Path extends string = string> = (context: IsolatedRouteContext<Path>) => unknown;

export interface RouteOptions<Path extends string = string> {
  /** Per-parameter regular expressions, anchored as a whole (Symfony's requirements). */
  requirements?: Partial<Record<ParamNames<Path>, string | RegExp>>;
  /** A name for listings and reports; defaults to `METHODS /path`. */
  name?: string;
  /**
   * Run the handler in a worker process: its memory is capped at MEMORY_LIMIT, it is
   * killed at MAX_EXECUTION_TIME, and a CPU-bound handler cannot hold up other requests.
   */
  isolated?: boolean;
  /**
   * JSON schemas of the answer by status (`200`, `2xx`, `default`), as Fastify's
   * `schema.response`: a returned object is written by the compiled serializer, which
   * keeps only the properties its schema declares. Errors keep the pipeline's bodies.
   */
  response?: Readonly<Record<string, object>>;
}

/** The handler type an options object asks for. */
type HandlerFor<Path extends string, Options> = Options extends { isolated: true }
  ? IsolatedRouteHandler<Path>
  : RouteHandler<Path>;

export interface RouteDefinition {
  name: string;
  methods: readonly HttpMethod[];
  path: string;
  requirements: Readonly<Record<string, string>>;
  /** True: `handler` is an {@link IsolatedRouteHandler} and runs in a worker process. */
  isolated: boolean;
  handler: RouteHandler | IsolatedRouteHandler;
  /** Response schemas by status, as declared: see {@link RouteOptions.response}. */
  response?: Readonly<Record<string, object>> | undefined;
  /** The call that declared it (when stack traces are installed): where a thrown non-Error points. */
  declaredAt?: StackFrame | undefined;
}

/** Thrown at start when a declaration cannot work; the message says which and why. */
export class RouteDefinitionError extends Error {
  override name = 'RouteDefinitionError';
}

const PARAM = /\{([^{}]*)\}/g;
/** The keys Fastify's `schema.response` takes. */
const RESPONSE_STATUS = /^(?:[1-5]\d\d|[1-5]xx|default)$/;

/** The table an application fills. Declaration order is kept: it orders the `Allow` list. */
export class Routes {
  readonly definitions: RouteDefinition[] = [];

  on<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    methods: HttpMethod | readonly HttpMethod[],
    path: Path,
    handler: HandlerFor<Path, Options>,
    options: Options = {} as Options,
  ): this {
    const list = (typeof methods === 'string' ? [methods] : [...methods]).map(
      (method) => method.toUpperCase() as HttpMethod,
    );
    const where = `route ${list.join('|')} ${path}`;
    if (list.length === 0) throw new RouteDefinitionError(`${where}: declare at least one method`);
    for (const method of list) {
      if (!HTTP_METHODS.includes(method)) throw new RouteDefinitionError(`${where}: unknown method "${method}"`);
    }
    if (!path.startsWith('/')) throw new RouteDefinitionError(`${where}: the path must start with "/"`);
    if (path.includes('*') || path.includes('?') || path.includes('#')) {
      throw new RouteDefinitionError(`${where}: "*", "?" and "#" cannot appear in a path`);
    }
    const names = [...path.matchAll(PARAM)].map((match) => match[1]!);
    for (const name of names) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw new RouteDefinitionError(`${where}: "{${name}}" is not a valid parameter name`);
    }
    if (new Set(names).size !== names.length) throw new RouteDefinitionError(`${where}: a parameter appears twice`);
    if (/[{}]/.test(path.replace(PARAM, ''))) throw new RouteDefinitionError(`${where}: unbalanced "{" or "}"`);

    const requirements: Record<string, string> = {};
    for (const [name, requirement] of Object.entries(options.requirements ?? {}) as Array<[string, string | RegExp]>) {
      if (!names.includes(name))
        throw new RouteDefinitionError(`${where}: requirement for unknown parameter "${name}"`);
      requirements[name] = checkRequirement(where, name, requirement);
    }
    const twin = this.definitions.find(
      (other) => other.path === path && other.methods.some((method) => list.includes(method)),
    );
    if (twin) throw new RouteDefinitionError(`${where}: already declared by route "${twin.name}"`);
    const declaredAt = callerFrame();
    const shape = routeShape(path, requirements);
    const lookalike = this.definitions.find(
      (other) =>
        routeShape(other.path, other.requirements) === shape && other.methods.some((method) => list.includes(method)),
    );
    if (lookalike) {
      const differ =
        requirementsInOrder(path, requirements) === requirementsInOrder(lookalike.path, lookalike.requirements)
          ? 'parameter names'
          : 'parameter names and requirements';
      throw new RouteDefinitionError(
        `${where}${at(declaredAt)}: the router cannot tell it from route "${lookalike.name}"${at(lookalike.declaredAt)}: their paths differ only in ${differ}`,
      );
    }
    const name = options.name ?? `${list.join('|')} ${path}`;
    const isolated = options.isolated === true;
    // A worker finds an isolated handler by its route's name, so the name must say which.
    if (isolated && this.definitions.some((other) => other.isolated && other.name === name)) {
      throw new RouteDefinitionError(`${where}: another isolated route is named "${name}"; give one a distinct name`);
    }
    const response = options.response;
    for (const [status, schema] of Object.entries(response ?? {})) {
      if (!RESPONSE_STATUS.test(status))
        throw new RouteDefinitionError(`${where}: response schema for "${status}": give a status, such as 200 or 2xx`);
      if (typeof schema !== 'object' || schema === null)
        throw new RouteDefinitionError(`${where}: the response schema for ${status} is not a JSON schema object`);
    }
    this.definitions.push({
      name,
      methods: list,
      path,
      requirements,
      isolated,
      handler: handler as RouteHandler | IsolatedRouteHandler,
      response,
      declaredAt,
    });
    return this;
  }

  get<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    path: Path,
    handler: HandlerFor<Path, Options>,
    options?: Options,
  ): this {
    return this.on<Path, Options>('GET', path, handler, options);
  }

  post<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    path: Path,
    handler: HandlerFor<Path, Options>,
    options?: Options,
  ): this {
    return this.on<Path, Options>('POST', path, handler, options);
  }

  put<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    path: Path,
    handler: HandlerFor<Path, Options>,
    options?: Options,
  ): this {
    return this.on<Path, Options>('PUT', path, handler, options);
  }

  patch<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    path: Path,
    handler: HandlerFor<Path, Options>,
    options?: Options,
  ): this {
    return this.on<Path, Options>('PATCH', path, handler, options);
  }

  delete<Path extends string, const Options extends RouteOptions<Path> = RouteOptions<Path>>(
    path: Path,
    handler: HandlerFor<Path, Options>,
    options?: Options,
  ): this {
    return this.on<Path, Options>('DELETE', path, handler, options);
  }
}

/** The first frame outside this module: the application's call that declares a route. */
function callerFrame(): StackFrame | undefined {
  const frames = framesOf(new Error());
  const own = frames[0]?.file;
  return frames.find((frame) => frame.file !== own);
}

const at = (frame: StackFrame | undefined) => (frame ? ` (${frame.file}:${frame.line})` : '');

/** A requirement as the regex source the router anchors; capturing groups would shift parameters. */
function checkRequirement(where: string, name: string, requirement: string | RegExp): string {
  let source = typeof requirement === 'string' ? requirement : requirement.source;
  source = source.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
  let groups: number;
  try {
    groups = new RegExp(`${source}|`).exec('')!.length - 1;
  } catch (error) {
    throw new RouteDefinitionError(
      `${where}: requirement for "${name}" is not a valid regular expression: ${(error as Error).message}`,
    );
  }
  if (groups > 0)
    throw new RouteDefinitionError(`${where}: requirement for "${name}" has a capturing group; write (?:...) instead`);
  return source;
}

/** What a routes module exports by default. */
export type RoutesDeclaration = (routes: Routes) => void | Promise<void>;

/**
 * Types a routes module's default export.
 *
 * @example
 * ```ts
 * import { defineRoutes } from '../src/index.js';
 *
 * export default defineRoutes((routes) => {
 *   routes.get('/hello', () => 'hello');
 *   routes.put('/items/{id}', ({ params }) => `item ${params.id}`, { requirements: { id: '\\d+' } });
 * });
 * ```
 */
export function defineRoutes(declare: RoutesDeclaration): RoutesDeclaration {
  return declare;
}
