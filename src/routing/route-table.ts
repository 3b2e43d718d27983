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
  /** Prefixed `'/'` routes whose spelling with a slash Fastify may also serve, unseen (see {@link slashTwins}). */
  private readonly unslashed: Array<{ known: KnownRoute; router: RouteLookup }> = [];
  private preflights = false;

  /**
   * Fastify's `onRoute` hook: describes the route and marks its options with the description.
   * A function, not an arrow: Fastify calls it on the instance the route is added to.
   */
  readonly collect: (this: unknown, options: RouteOptions) => void;

  constructor() {
    const table = this;
    this.collect = function collectRoute(this: unknown, options: RouteOptions) {
      table.add(options, this as RouteLookup | undefined);
    };
  }

  private add(options: RouteOptions, router: RouteLookup | undefined): void {
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
      if (isPrefixRoot(options) && typeof router?.hasRoute === 'function') this.unslashed.push({ known, router });
    }
    options.config = { ...config, [KNOWN_ROUTE]: known } as RouteOptions['config'];
    if (methods.includes('OPTIONS') && (url === '*' || url === '/*')) this.preflights = true;
  }

  /**
   * A plugin's `'/'` route under the prefix `/users` is served as `/users` and, unless the
   * router ignores trailing slashes, as `/users/`; Fastify calls `onRoute` for the first
   * only. Once the routes are in, the router says which it serves.
   */
  private slashTwins(): void {
    if (this.unslashed.length === 0) return;
    for (const { known, router } of this.unslashed.splice(0)) {
      const path = `${known.path}/`;
      const served = known.methods.filter((method) => router.hasRoute({ url: path, method }));
      if (served.length === 0) continue;
      const slashed = {
        ...known,
        name: `${served.join('|')} ${path}`,
        path,
        methods: served,
        shapes: fastifyPathShapes(path),
      };
      // Fastify does call onRoute for the HEAD twin of a GET '/': the slashed route takes its place.
      const seen = this.routes.findIndex(
        (route) =>
          route.path === path &&
          route.methods.every((m) => served.includes(m) || (m === 'HEAD' && served.includes('GET'))),
      );
      if (seen === -1) this.routes.push(slashed);
      else this.routes[seen] = slashed;
      this.compiled = undefined;
    }
  }

  /** True once a route answers OPTIONS on every path (`@fastify/cors`): the application owns preflights. */
  get ownsPreflights(): boolean {
    return this.preflights;
  }

  /** The routes collected so far, in declaration order (the order of `Allow`). */
  get known(): readonly KnownRoute[] {
    this.slashTwins();
    return this.routes;
  }

  /** The matcher of every route collected so far, built once they are all in. */
  get matcher(): RouteMatcher {
    this.slashTwins();
    return (this.compiled ??= new RouteMatcher(this.routes));
  }
}

/** What the table asks the instance a route was added to. */
interface RouteLookup {
  hasRoute(route: { url: string; method: string }): boolean;
}

/** A route a prefixed plugin declared as `'/'` (or `''`), as Fastify adds it first: at the bare prefix. */
function isPrefixRoot(options: RouteOptions): boolean {
  const { prefix, routePath } = options as RouteOptions & { prefix?: string; routePath?: string };
  return typeof prefix === 'string' && prefix.length > 0 && routePath === '' && !options.url.endsWith('/');
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
