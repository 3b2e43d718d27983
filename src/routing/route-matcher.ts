/**
 * The known routes as path matchers, for the questions the router does not answer:
 * which methods a path allows (405 and `Allow`), whether the path with or without its
 * trailing slash exists (301), and which routes came closest (the report).
 * Only unmatched requests ask, so matched requests never pay for it.
 */
import type { PathPart, PathShape } from './fastify-path.js';

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

interface CompiledShape {
  pattern: RegExp;
  /** The same path with every parameter unconstrained: tells a failed requirement from a different path. */
  loosePattern: RegExp;
  /** Parameter names by position (`p0`, `p1`... in the patterns) and their requirements. */
  params: ReadonlyArray<{ name: string; requirement: string | undefined }>;
  /** The literal text before the first parameter: the cheapest way to tell near from far. */
  staticPrefix: string;
}

interface CompiledRoute {
  route: MatchableRoute;
  shapes: CompiledShape[];
}

export interface RouteMiss {
  name: string;
  path: string;
  methods: readonly string[];
  /** Why it did not answer: the path differs, a requirement failed, or the method. */
  reason: string;
}

export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly MatchableRoute[]) {
    this.compiled = routes.map((route) => ({
      route,
      shapes: (route.shapes ?? [routesApiShape(route.path, route.requirements ?? {})]).map(compileShape),
    }));
  }

  /** Methods of every route whose path matches, in declaration order, without repeats. */
  allowedMethods(path: string): string[] {
    if (this.compiled.length === 0) return [];
    const decoded = decodePath(path);
    const allowed = new Set<string>();
    for (const { route, shapes } of this.compiled) {
      if (shapes.some((shape) => shape.pattern.test(decoded))) for (const method of route.methods) allowed.add(method);
    }
    return [...allowed];
  }

  /** True when a route answers `method` on `path` (GET routes answer HEAD). */
  answers(method: string, path: string): boolean {
    const allowed = this.allowedMethods(path);
    return allowed.includes(method) || (method === 'HEAD' && allowed.includes('GET'));
  }

  /** The routes that share the longest literal prefix with the path, and why each missed. */
  closest(method: string, path: string, limit = 5): RouteMiss[] {
    const decoded = decodePath(path);
    return this.compiled
      .map((compiled) => ({ compiled, shared: Math.max(...compiled.shapes.map((shape) => sharedPrefixLength(shape.staticPrefix, decoded))) }))
      .filter(({ shared }) => shared > 1 || this.compiled.length <= limit)
      .sort((a, b) => b.shared - a.shared)
      .slice(0, limit)
      .map(({ compiled: { route, shapes } }) => ({
        name: route.name,
        path: route.path,
        methods: route.methods,
        reason: explainMiss(route, shapes, method, decoded),
      }));
  }
}

function explainMiss(route: MatchableRoute, shapes: readonly CompiledShape[], method: string, path: string): string {
  if (shapes.some((shape) => shape.pattern.test(path))) {
    return `the path matches but ${method} is not among ${route.methods.join(', ')}`;
  }
  for (const shape of shapes) {
    const loose = shape.loosePattern.exec(path);
    if (!loose) continue;
    const values = loose.groups ?? {};
    for (const [index, { name, requirement }] of shape.params.entries()) {
      const value = values[`p${index}`] ?? '';
      if (requirement !== undefined && !new RegExp(`^(?:${requirement})$`).test(value)) {
        return `parameter "${name}" = "${value}" does not match the requirement ${requirement}`;
      }
    }
  }
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

const ANY_SEGMENT = '[^/]+';

function compileShape(shape: PathShape): CompiledShape {
  let source = '';
  let loose = '';
  let staticPrefix: string | undefined;
  const params: Array<{ name: string; requirement: string | undefined }> = [];
  for (const part of shape) {
    if (typeof part === 'string') {
      source += escapeRegExp(part);
      loose += escapeRegExp(part);
      continue;
    }
    staticPrefix ??= shape.slice(0, shape.indexOf(part)).join('');
    const group = `(?<p${params.length}>`;
    // A wildcard takes the rest however loosely it is compared; other parameters one segment.
    const unconstrained = part.name === '*' ? '.*' : ANY_SEGMENT;
    source += `${group}${part.requirement ?? ANY_SEGMENT})`;
    loose += `${group}${unconstrained})`;
    params.push({ name: part.name, requirement: part.name === '*' ? undefined : part.requirement });
  }
  return { pattern: new RegExp(`^${source}$`), loosePattern: new RegExp(`^${loose}$`), params, staticPrefix: staticPrefix ?? shape.join('') };
}

function sharedPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The path as the router compares it: percent-decoded where that is safe. */
function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
