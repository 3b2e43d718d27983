/**
 * Every route the application has, whether declared natively (`app.get`, `app.route`, in
 * any plugin) or with the routes API, collected as Fastify adds it (`onRoute`): the 405 and
 * `Allow`, the 301 and the closest routes are decided from it, and each route's options
 * are marked with its description, so that a report names the route that answered.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import type { StackFrame } from '../debug/stack-trace.js';
import { fastifyPathShapes } from './fastify-path.js';
import { routesApiDefinitionOf } from './register-routes.js';
import { captureDeclaration } from './route-declaration.js';
import { RouteMatcher, type MatchableRoute } from './route-matcher.js';
import { RouteDefinitionError } from './routes.js';

export interface KnownRoute extends MatchableRoute {
  /** True for a route of the routes API (`defineRoutes`); false for a native Fastify route. */
  routesApi: boolean;
  /** True for a routes API route that runs in a worker process. */
  isolated: boolean;
  /** Where the application declared a route with a schema: its validation errors are raised there. */
  declaredAt: readonly StackFrame[];
}

const KNOWN_ROUTE = Symbol('vigil.knownRoute');

/**
 * The routes collected so far, in declaration order.
 *
 * @example
 * ```ts
 * const table = new RouteTable();
 * app.addHook('onRoute', table.collect); // before any route is added
 * ```
 */
export class RouteTable {
  private readonly routes: KnownRoute[] = [];
  private compiled: RouteMatcher | undefined;
  /** GET routes by URL, with their handler: the HEAD route Fastify adds for one has the same. */
  private readonly getRoutes = new Map<string, { handler: unknown; known: KnownRoute }>();
  private preflights = false;

  /** Fastify's `onRoute` hook: describes the route and marks its options with the description. */
  readonly collect = (options: RouteOptions): void => {
    const methods = [options.method].flat().map((method) => String(method).toUpperCase());
    const url = options.url;
    const config = (options.config ?? {}) as Record<string | symbol, unknown>;
    const twin = this.getRoutes.get(url);
    // Fastify's HEAD twin of a GET route is the same route, answering HEAD as GET routes do.
    let known =
      methods.length === 1 && methods[0] === 'HEAD' && twin?.handler === options.handler ? twin.known : undefined;
    if (known === undefined) {
      known = describe(options, methods, config);
      this.routes.push(known);
      this.compiled = undefined;
      if (methods.includes('GET')) this.getRoutes.set(url, { handler: options.handler, known });
    }
    options.config = { ...config, [KNOWN_ROUTE]: known } as RouteOptions['config'];
    if (methods.includes('OPTIONS') && (url === '*' || url === '/*')) this.preflights = true;
  };

  /** True once a route answers OPTIONS on every path (`@fastify/cors`): the application owns preflights. */
  get ownsPreflights(): boolean {
    return this.preflights;
  }

  /** The routes collected so far, in declaration order (the order of `Allow`). */
  get known(): readonly KnownRoute[] {
    return this.routes;
  }

  /** The matcher of every route collected so far, built once they are all in. */
  get matcher(): RouteMatcher {
    return (this.compiled ??= new RouteMatcher(this.routes));
  }
}

function describe(options: RouteOptions, methods: string[], config: Record<string | symbol, unknown>): KnownRoute {
  const definition = routesApiDefinitionOf(config);
  if (definition) {
    return {
      name: definition.name,
      path: definition.path,
      methods: definition.methods,
      requirements: definition.requirements,
      routesApi: true,
      isolated: definition.isolated,
      declaredAt: definition.declaredAt ? [definition.declaredAt] : [],
    };
  }
  const name = `${methods.join('|')} ${options.url}`;
  if (config.isolated === true) {
    throw new RouteDefinitionError(
      `route ${name}: only routes declared with defineRoutes in a routes module can be isolated (their worker processes import that module); a Fastify route runs in this process`,
    );
  }
  return {
    name,
    path: options.url,
    methods,
    shapes: fastifyPathShapes(options.url),
    routesApi: false,
    isolated: false,
    declaredAt: options.schema === undefined ? [] : captureDeclaration(),
  };
}

/** The route that answered a request, as the table describes it; undefined for an unrouted request. */
export function routeOf(request: FastifyRequest): KnownRoute | undefined {
  if (request.is404) return undefined;
  return (request.routeOptions.config as unknown as Record<symbol, unknown> | undefined)?.[KNOWN_ROUTE] as
    | KnownRoute
    | undefined;
}
