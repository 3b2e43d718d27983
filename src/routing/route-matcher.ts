/**
 * The known routes as path matchers, for the questions the router does not answer:
 * which methods a path allows (405 and `Allow`), whether the path with or without its
 * trailing slash exists (301), which routes came closest (the report), and which are a few
 * letters away ("did you mean").
 * Only unmatched requests ask, so matched requests never pay for it.
 */
import { createHash } from 'node:crypto';
import type { PathPart, PathShape } from './fastify-path.js';
import { NearRoutes, type NearRoute } from './near-routes.js';
import { compileShape, MAX_PARAM_LENGTH, splitPath, type CompiledShape, type SplitPath } from './shape-match.js';
import { safeDecodeUri } from '../utils/safe-decode.js';

/** A route as the matcher knows it: declared with the routes API, or natively with Fastify. */
export interface MatchableRoute {
  name: string;
  /** The path as declared, shown in explanations: `/items/{id}`, or Fastify's `/items/:id`. */
  path: string;
  methods: readonly string[];
  /** The shapes the router matches (a Fastify path); without them, `path` in the routes API's `{name}` syntax. */
  shapes?: readonly PathShape[] | undefined;
  /** The `{name}` parameters' requirements of a routes API path. */
  requirements?: Readonly<Record<string, string>>;
}

interface CompiledRoute {
  route: MatchableRoute;
  shapes: CompiledShape[];
  /** The shapes as declared, for the near routes. */
  declared: readonly PathShape[];
  /** Its path is a wildcard alone (`*`, `/*`): it takes every path, so it says nothing of one. */
  catchAll: boolean;
}

export interface RouteMiss {
  name: string;
  path: string;
  methods: readonly string[];
  /** Why it did not answer: the path differs, a requirement failed, or the method. */
  reason: string;
}

/** How one route answers a request, as `vigil router:match` tells it (Symfony's wording). */
interface RouteTrace {
  name: string;
  path: string;
  methods: readonly string[];
  /** `match`: it answers; `almost`: the path's shape fits but a requirement or the method does not; `miss`: another path. */
  verdict: 'match' | 'almost' | 'miss';
  reason: string;
}

const NO_METHODS: readonly string[] = Object.freeze([]);

/** The kernel's own routes (Symfony's `_profiler*` names) are never offered as the closest to a request. */
const isKernelRoute = (compiled: CompiledRoute) => compiled.route.name.startsWith('_profiler');

export class RouteMatcher {
  private readonly compiled: CompiledRoute[];
  private hash: string | undefined;
  private near: NearRoutes | undefined;

  constructor(routes: readonly MatchableRoute[]) {
    this.compiled = routes.map((route) => {
      const shapes = route.shapes ?? [routesApiShape(route.path, route.requirements ?? {})];
      return { route, shapes: shapes.map(compileShape), declared: shapes, catchAll: shapes.every(isCatchAll) };
    });
  }

  /**
   * A short hash of the application's routes (names, methods, patterns; the kernel's own are
   * fixed): a report names the version its request met, and is explained later against this
   * one. The same routes give the same version in every process, after a restart, and on the
   * command line.
   */
  get version(): string {
    if (this.hash === undefined) {
      const routes = this.compiled
        .filter((compiled) => !isKernelRoute(compiled))
        .map(({ route, shapes }) => [route.name, route.methods, shapes.map((shape) => shape.source)]);
      this.hash = createHash('sha256').update(JSON.stringify(routes)).digest('hex').slice(0, 12);
    }
    return this.hash;
  }

  /**
   * Methods of every route whose path matches, in declaration order, without repeats. A
   * catch-all route (`OPTIONS *` of @fastify/cors, `GET /*` of @fastify/static at the root)
   * is left out: it would make every path a 405, where Fastify answers 404.
   */
  allowedMethods(path: string): readonly string[] {
    if (this.compiled.length === 0) return NO_METHODS;
    const split = splitPath(safeDecodeUri(path));
    // Most paths no route takes: nothing more is allocated for them.
    let allowed: Set<string> | undefined;
    for (const { route, shapes, catchAll } of this.compiled) {
      if (!catchAll && shapes.some((shape) => shape.matches(split, true))) {
        allowed ??= new Set();
        for (const method of route.methods) allowed.add(method);
      }
    }
    return allowed ? [...allowed] : NO_METHODS;
  }

  /** True when a route answers `method` on `path` (GET routes answer HEAD). */
  answers(method: string, path: string): boolean {
    const allowed = this.allowedMethods(path);
    return allowed.includes(method) || (method === 'HEAD' && allowed.includes('GET'));
  }

  /** The application's routes that share the longest literal prefix with the path, and why each missed. */
  closest(method: string, path: string, limit = 5): RouteMiss[] {
    const decoded = safeDecodeUri(path);
    const split = splitPath(decoded);
    const candidates = this.compiled.filter((compiled) => !isKernelRoute(compiled));
    return candidates
      .map((compiled) => ({
        compiled,
        shared: Math.max(...compiled.shapes.map((shape) => sharedPrefixLength(shape.staticPrefix, decoded))),
      }))
      .filter(({ shared }) => shared > 1 || candidates.length <= limit)
      .sort((a, b) => b.shared - a.shared)
      .slice(0, limit)
      .map(({ compiled: { route, shapes } }) => ({
        name: route.name,
        path: route.path,
        methods: route.methods,
        reason: explainMiss(route, shapes, method, split),
      }));
  }

  /**
   * The application's routes a few letters from `path` ("did you mean"), closest first. A
   * catch-all route is near every path, so it is never offered.
   */
  nearest(path: string): NearRoute[] {
    this.near ??= new NearRoutes(
      this.compiled
        .filter((compiled) => !isKernelRoute(compiled) && !compiled.catchAll)
        .map(({ route, declared }) => ({
          name: route.name,
          path: route.path,
          methods: route.methods,
          shapes: declared,
        })),
    );
    return this.near.of(safeDecodeUri(path));
  }

  /** Every route, in declaration order, with whether it answers `method` on `path`, and why not. */
  trace(method: string, path: string): RouteTrace[] {
    const split = splitPath(safeDecodeUri(path));
    return this.compiled.map(({ route, shapes }): RouteTrace => {
      const { name, methods } = route;
      const base = { name, path: route.path, methods };
      if (shapes.some((shape) => shape.matches(split, true))) {
        const answersMethod = methods.includes(method) || (method === 'HEAD' && methods.includes('GET'));
        if (answersMethod) return { ...base, verdict: 'match', reason: `Route "${name}" matches` };
        return {
          ...base,
          verdict: 'almost',
          reason: `Route "${name}" almost matches but method "${method}" is not among ${methods.join(', ')}`,
        };
      }
      const failed = failedRequirement(shapes, split);
      if (failed)
        return {
          ...base,
          verdict: 'almost',
          reason: `Route "${name}" almost matches but requirement for "${failed.name}" does not match (${failed.requirement})`,
        };
      return {
        ...base,
        verdict: 'miss',
        reason: `Route "${name}" does not match: path "${route.path}" does not match`,
      };
    });
  }
}

/** The first parameter whose requirement fails in a shape the path otherwise fits. */
function failedRequirement(
  shapes: readonly CompiledShape[],
  path: SplitPath,
): { name: string; value: string; requirement: string } | undefined {
  for (const shape of shapes) {
    const values = shape.values(path);
    if (!values) continue;
    for (const [index, { name, requirement }] of shape.params.entries()) {
      const value = values[index] ?? '';
      if (requirement === undefined) continue;
      // A value longer than the router takes fails without running the application's expression on it.
      if (value.length > MAX_PARAM_LENGTH || !new RegExp(`^(?:${requirement})$`).test(value))
        return { name, value, requirement };
    }
  }
  return undefined;
}

function explainMiss(route: MatchableRoute, shapes: readonly CompiledShape[], method: string, path: SplitPath): string {
  if (shapes.some((shape) => shape.matches(path, true))) {
    return `the path matches but ${method} is not among ${route.methods.join(', ')}`;
  }
  const failed = failedRequirement(shapes, path);
  if (failed)
    return `parameter "${failed.name}" = "${failed.value}" does not match the requirement ${failed.requirement}`;
  return 'the path does not match';
}

/** A routes API path (`/items/{id}`) as literals and parameters. */
function routesApiShape(path: string, requirements: Readonly<Record<string, string>>): PathShape {
  const parts: PathPart[] = [];
  let last = 0;
  for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
    if (match.index > last) parts.push(path.slice(last, match.index));
    parts.push({ name: match[1]!, requirement: requirements[match[1]!] });
    last = match.index + match[0].length;
  }
  if (last < path.length) parts.push(path.slice(last));
  return parts;
}

function isCatchAll(shape: PathShape): boolean {
  const rest = shape[0] === '/' ? shape.slice(1) : shape;
  const only = rest[0];
  return rest.length === 1 && typeof only === 'object' && only.name === '*';
}

function sharedPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
