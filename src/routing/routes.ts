/**
 * The routes API: how an application declares what it answers.
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
 *
 * A handler returns what to send (a string is text/plain, an object JSON, a Buffer or
 * stream as is), or uses `reply` itself. Whatever it throws goes to the error pipeline.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** `'/items/{id}/{part}'` → `'id' | 'part'` */
export type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
export type RouteParams<Path extends string> = { [Name in ParamNames<Path>]: string };

export interface RouteContext<Path extends string = string> {
  /** Path parameters, percent-decoded, already checked against their requirements. */
  params: RouteParams<Path>;
  query: Record<string, string | string[] | undefined>;
  /** The parsed body (JSON, form or text), undefined when there is none. */
  body: unknown;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Fires when the request is abandoned: the client went away or a limit stopped it. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

export type RouteHandler<Path extends string = string> = (context: RouteContext<Path>) => unknown;

export interface RouteOptions<Path extends string = string> {
  /** Per-parameter regular expressions, anchored as a whole (Symfony's requirements). */
  requirements?: Partial<Record<ParamNames<Path>, string | RegExp>>;
  /** A name for listings and reports; defaults to `METHODS /path`. */
  name?: string;
}

export interface RouteDefinition {
  name: string;
  methods: readonly HttpMethod[];
  path: string;
  requirements: Readonly<Record<string, string>>;
  handler: RouteHandler;
}

/** Thrown at start when a declaration cannot work; the message says which and why. */
export class RouteDefinitionError extends Error {
  override name = 'RouteDefinitionError';
}

const PARAM = /\{([^{}]*)\}/g;

/** The table an application fills. Declaration order is kept: it orders the `Allow` list. */
export class Routes {
  readonly definitions: RouteDefinition[] = [];

  on<Path extends string>(methods: HttpMethod | readonly HttpMethod[], path: Path, handler: RouteHandler<Path>, options: RouteOptions<Path> = {}): this {
    const list = (typeof methods === 'string' ? [methods] : [...methods]).map((method) => method.toUpperCase() as HttpMethod);
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
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RouteDefinitionError(`${where}: "{${name}}" is not a valid parameter name`);
    }
    if (new Set(names).size !== names.length) throw new RouteDefinitionError(`${where}: a parameter appears twice`);
    if (/[{}]/.test(path.replace(PARAM, ''))) throw new RouteDefinitionError(`${where}: unbalanced "{" or "}"`);

    const requirements: Record<string, string> = {};
    for (const [name, requirement] of Object.entries(options.requirements ?? {}) as Array<[string, string | RegExp]>) {
      if (!names.includes(name)) throw new RouteDefinitionError(`${where}: requirement for unknown parameter "${name}"`);
      requirements[name] = checkRequirement(where, name, requirement);
    }
    this.definitions.push({ name: options.name ?? `${list.join('|')} ${path}`, methods: list, path, requirements, handler: handler as RouteHandler });
    return this;
  }

  get<Path extends string>(path: Path, handler: RouteHandler<Path>, options?: RouteOptions<Path>): this {
    return this.on('GET', path, handler, options);
  }

  post<Path extends string>(path: Path, handler: RouteHandler<Path>, options?: RouteOptions<Path>): this {
    return this.on('POST', path, handler, options);
  }

  put<Path extends string>(path: Path, handler: RouteHandler<Path>, options?: RouteOptions<Path>): this {
    return this.on('PUT', path, handler, options);
  }

  patch<Path extends string>(path: Path, handler: RouteHandler<Path>, options?: RouteOptions<Path>): this {
    return this.on('PATCH', path, handler, options);
  }

  delete<Path extends string>(path: Path, handler: RouteHandler<Path>, options?: RouteOptions<Path>): this {
    return this.on('DELETE', path, handler, options);
  }
}

/** A requirement as the regex source the router anchors; capturing groups would shift parameters. */
function checkRequirement(where: string, name: string, requirement: string | RegExp): string {
  let source = typeof requirement === 'string' ? requirement : requirement.source;
  source = source.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
  let groups: number;
  try {
    groups = new RegExp(`${source}|`).exec('')!.length - 1;
  } catch (error) {
    throw new RouteDefinitionError(`${where}: requirement for "${name}" is not a valid regular expression: ${(error as Error).message}`);
  }
  if (groups > 0) throw new RouteDefinitionError(`${where}: requirement for "${name}" has a capturing group; write (?:...) instead`);
  return source;
}

/** What a routes module exports by default. */
export type RoutesDeclaration = (routes: Routes) => void | Promise<void>;

/** Types a routes module's default export. */
export function defineRoutes(declare: RoutesDeclaration): RoutesDeclaration {
  return declare;
}
