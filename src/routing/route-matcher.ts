/**
 * The declared routes as path matchers, for the questions the router does not answer:
 * which methods a path allows (405 and `Allow`), whether the path with or without its
 * trailing slash exists (301), and which routes came closest (the report).
 * Only unmatched requests ask, so matched requests never pay for it.
 */
import type { HttpMethod, RouteDefinition } from './routes.js';

interface CompiledRoute {
  definition: RouteDefinition;
  pattern: RegExp;
  /** The same path with every parameter unconstrained: tells a failed requirement from a different path. */
  loosePattern: RegExp;
  /** The literal text before the first parameter: the cheapest way to tell near from far. */
  staticPrefix: string;
}

export interface RouteMiss {
  name: string;
  path: string;
  methods: readonly HttpMethod[];
  /** Why it did not answer: the path differs, a requirement failed, or the method. */
  reason: string;
}

/** How one route answers a request, as `vigil router:match` tells it (Symfony's wording). */
export interface RouteTrace {
  name: string;
  path: string;
  methods: readonly HttpMethod[];
  /** `match`: it answers; `almost`: the path's shape fits but a requirement or the method does not; `miss`: another path. */
  verdict: 'match' | 'almost' | 'miss';
  reason: string;
}

/** The kernel's own routes (Symfony's `_profiler*` names) are never offered as the closest to a request. */
const isKernelRoute = (route: CompiledRoute) => route.definition.name.startsWith('_profiler');

export class RouteMatcher {
  private readonly compiled: CompiledRoute[];

  constructor(definitions: readonly RouteDefinition[]) {
    this.compiled = definitions.map((definition) => ({
      definition,
      pattern: compile(definition.path, definition.requirements),
      loosePattern: compile(definition.path, {}),
      staticPrefix: definition.path.split('{')[0]!,
    }));
  }

  /** Methods of every route whose path matches, in declaration order, without repeats. */
  allowedMethods(path: string): HttpMethod[] {
    if (this.compiled.length === 0) return [];
    const decoded = decodePath(path);
    const allowed = new Set<HttpMethod>();
    for (const route of this.compiled) {
      if (route.pattern.test(decoded)) for (const method of route.definition.methods) allowed.add(method);
    }
    return [...allowed];
  }

  /** True when a route answers `method` on `path` (GET routes answer HEAD). */
  answers(method: string, path: string): boolean {
    const allowed = this.allowedMethods(path);
    return allowed.includes(method as HttpMethod) || (method === 'HEAD' && allowed.includes('GET'));
  }

  /** The application's routes that share the longest literal prefix with the path, and why each missed. */
  closest(method: string, path: string, limit = 5): RouteMiss[] {
    const decoded = decodePath(path);
    const candidates = this.compiled.filter((route) => !isKernelRoute(route));
    return candidates
      .map((route) => ({ route, shared: sharedPrefixLength(route.staticPrefix, decoded) }))
      .filter(({ shared }) => shared > 1 || candidates.length <= limit)
      .sort((a, b) => b.shared - a.shared)
      .slice(0, limit)
      .map(({ route }) => ({
        name: route.definition.name,
        path: route.definition.path,
        methods: route.definition.methods,
        reason: explainMiss(route, method, decoded),
      }));
  }

  /** Every route, in declaration order, with whether it answers `method` on `path`, and why not. */
  trace(method: string, path: string): RouteTrace[] {
    const decoded = decodePath(path);
    return this.compiled.map(({ definition, pattern, loosePattern }) => {
      const { name, methods } = definition;
      const base = { name, path: definition.path, methods };
      const answersMethod = methods.includes(method as HttpMethod) || (method === 'HEAD' && methods.includes('GET'));
      if (pattern.test(decoded)) {
        if (answersMethod) return { ...base, verdict: 'match', reason: `Route "${name}" matches` };
        return { ...base, verdict: 'almost', reason: `Route "${name}" almost matches but method "${method}" is not among ${methods.join(', ')}` };
      }
      const loose = loosePattern.exec(decoded);
      const values = loose?.groups ?? {};
      const failed = loose ? Object.entries(definition.requirements).find(([param, requirement]) => !new RegExp(`^(?:${requirement})$`).test(values[param] ?? '')) : undefined;
      if (failed) return { ...base, verdict: 'almost', reason: `Route "${name}" almost matches but requirement for "${failed[0]}" does not match (${failed[1]})` };
      return { ...base, verdict: 'miss', reason: `Route "${name}" does not match: path "${definition.path}" does not match` };
    });
  }
}

function explainMiss(route: CompiledRoute, method: string, path: string): string {
  if (route.pattern.test(path)) {
    return `the path matches but ${method} is not among ${route.definition.methods.join(', ')}`;
  }
  const loose = route.loosePattern.exec(path);
  if (loose) {
    const values = loose.groups ?? {};
    const failed = Object.entries(route.definition.requirements).find(([name, requirement]) => !new RegExp(`^(?:${requirement})$`).test(values[name] ?? ''));
    if (failed) return `parameter "${failed[0]}" = "${values[failed[0]]}" does not match the requirement ${failed[1]}`;
  }
  return 'the path does not match';
}

function sharedPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(path: string, requirements: Readonly<Record<string, string>>): RegExp {
  let source = '';
  let last = 0;
  for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
    source += escapeRegExp(path.slice(last, match.index));
    source += `(?<${match[1]}>${requirements[match[1]!] ?? '[^/]+'})`;
    last = match.index + match[0].length;
  }
  return new RegExp(`^${source}${escapeRegExp(path.slice(last))}$`);
}

/** The path as the router compares it: percent-decoded where that is safe. */
function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
