/**
 * Issue 26, item 1: route shapes with several parameters per segment, and hostile paths
 * for them. Two parts:
 *
 * - the matcher itself, in this process: random shapes in both syntaxes (`{name}` with
 *   requirements, and Fastify's `:name(regex)`), each compared with the regular expression
 *   the matcher used to be (short paths, where backtracking is cheap) and timed on long
 *   paths made to fail late (no single question may take 100 ms);
 * - a family of requests over the wire, against the shapes of the fuzz routes
 *   (`ROUTE_SHAPE_PATHS`), with the methods the router leaves to the matcher.
 */
import { fastifyPathShapes, type PathShape } from '../../src/routing/fastify-path.js';
import { RouteMatcher, type MatchableRoute } from '../../src/routing/route-matcher.js';
import { statusRule, type Family } from './cases.js';
import { Random } from './prng.js';
import { requestBytes } from './request.js';

/** The shapes the fuzz routes declare (test/fixtures/fuzz-routes.ts), with their requirements. */
export const ROUTE_SHAPE_PATHS: ReadonlyArray<{ path: string; requirements?: Record<string, string> }> = [
  { path: '/shape/date/{y}-{m}-{d}' },
  { path: '/shape/file/{a}.{b}.{c}.png' },
  { path: '/shape/mixed/{a}-{b}-{c}', requirements: { b: '\\d+', c: '[a-z-]+x' } },
  { path: '/shape/two/{a}-{b}/{c}.{d}-{e}' },
];

/** No single question (allowed methods, closest routes, trace) may take longer: a stall. */
export const STALL_MS = 100;

const LITERALS = ['-', '.', '--', '-x', '.png', '_', 'a', '~'];
/** Requirements that never take a slash (the matcher never lets one), so that the old expression agrees. */
const REQUIREMENTS = ['\\d+', '[a-z]+', '[\\d-]+', '[a-z.]+x', 'x|xy', '[^/]*', '-*', '(?:ab)+', '\\w{1,3}', '[^./]+'];
const ALPHABET = ['-', '.', 'a', 'x', '1', 'y', 'p', 'n', 'g', '/', '_', '~', 'b'];

interface Generated {
  /** As declared: `{name}` syntax, or Fastify's. */
  route: MatchableRoute;
  /** The literal characters of the shape, to build paths that nearly fit. */
  literals: string[];
  /** A path that fits the shape, to start hostile ones from. */
  sample: string;
}

/** One random shape: 1 to 3 segments, each with 1 to 4 parameters between literals. */
function generateShape(random: Random, id: number): Generated {
  const native = random.chance(0.5);
  const requirements: Record<string, string> = {};
  const literals: string[] = [];
  let path = `/s${id}`;
  let sample = path;
  let n = 0;
  for (let segment = random.int(1, 3); segment > 0; segment--) {
    path += '/';
    sample += '/';
    if (random.chance(0.3)) {
      path += 'v';
      sample += 'v';
    }
    for (let count = random.int(1, 4); count > 0; count--) {
      const name = `p${n++}`;
      const requirement = random.chance(0.3) ? random.pick(REQUIREMENTS) : undefined;
      if (native) path += requirement === undefined ? `:${name}` : `:${name}(^${requirement}$)`;
      else path += `{${name}}`;
      if (requirement !== undefined && !native) requirements[name] = requirement;
      sample += requirement === undefined ? 'a' : sampleFor(requirement);
      // Fastify ends a parameter's name at "-" or "."; another literal needs a regex before it.
      const literal =
        count > 1 || random.chance(0.4)
          ? random.pick(native && requirement === undefined ? ['-', '.', '-x', '.png', '--'] : LITERALS)
          : '';
      path += literal;
      sample += literal;
      if (literal !== '') literals.push(literal);
    }
  }
  const route: MatchableRoute = native
    ? { name: `GET ${path}`, path, methods: ['GET'], shapes: fastifyPathShapes(path) }
    : { name: `GET ${path}`, path, methods: ['GET'], requirements };
  return { route, literals, sample };
}

function sampleFor(requirement: string): string {
  return (
    {
      '\\d+': '12',
      '[a-z]+': 'ab',
      '[\\d-]+': '1-2',
      '[a-z.]+x': 'a.x',
      'x|xy': 'xy',
      '[^/]*': '',
      '-*': '--',
      '(?:ab)+': 'abab',
      '\\w{1,3}': 'a1',
      '[^./]+': 'a-b',
    }[requirement] ?? 'a'
  );
}

export interface ShapeFuzzResult {
  shapes: number;
  comparisons: number;
  /** Of the comparisons, paths the old expression matched, and paths it found a failing requirement in. */
  matched: number;
  almost: number;
  hostilePaths: number;
  disagreements: string[];
  stalls: string[];
  slowestMs: number;
  crashes: string[];
}

/** Runs the matcher part: `count` shapes, each compared on short paths and timed on long ones (a stall: over `stallMs`). */
export function fuzzRouteShapes(
  seed: number,
  count: number,
  { shortPaths = 60, longLength = 8_000, stallMs = STALL_MS } = {},
): ShapeFuzzResult {
  const random = new Random(seed);
  const result: ShapeFuzzResult = {
    shapes: 0,
    comparisons: 0,
    matched: 0,
    almost: 0,
    hostilePaths: 0,
    disagreements: [],
    stalls: [],
    slowestMs: 0,
    crashes: [],
  };
  for (let id = 1; id <= count; id++) {
    const generated = generateShape(random, id);
    const { route } = generated;
    result.shapes++;
    let matcher: RouteMatcher;
    let reference: ReferenceMatcher;
    try {
      matcher = new RouteMatcher([route]);
      reference = new ReferenceMatcher(route);
    } catch (error) {
      result.crashes.push(`${route.path}: ${(error as Error).message}`);
      continue;
    }
    for (let i = 0; i < shortPaths; i++) {
      const path = shortPath(random, generated);
      result.comparisons++;
      try {
        const got = matcher.allowedMethods(path).length > 0;
        const expected = reference.matches(path);
        const gotReason = matcher.trace('GET', path)[0]!.reason;
        const expectedReason = reference.reason(path);
        if (expected) result.matched++;
        else if (expectedReason.includes('almost')) result.almost++;
        if (got !== expected || gotReason !== expectedReason) {
          result.disagreements.push(
            `${route.path} on ${JSON.stringify(path)}: ${got ? 'match' : 'no match'} (${gotReason}), the old expression: ${expected ? 'match' : 'no match'} (${expectedReason})`,
          );
        }
      } catch (error) {
        result.crashes.push(`${route.path} on ${JSON.stringify(path)}: ${(error as Error).message}`);
      }
    }
    for (const path of hostilePaths(random, generated, longLength)) {
      result.hostilePaths++;
      for (const [question, ask] of [
        ['allowed methods', () => matcher.allowedMethods(path)],
        ['closest routes', () => matcher.closest('POST', path)],
        ['trace', () => matcher.trace('POST', path)],
      ] as const) {
        const started = performance.now();
        try {
          ask();
        } catch (error) {
          result.crashes.push(`${question} of ${route.path} on ${path.slice(0, 40)}...: ${(error as Error).message}`);
        }
        const ms = performance.now() - started;
        result.slowestMs = Math.max(result.slowestMs, ms);
        if (ms > stallMs)
          result.stalls.push(
            `${question} of ${route.path} on ${JSON.stringify(path.slice(0, 40))}... (${path.length} characters): ${Math.round(ms)} ms`,
          );
      }
    }
  }
  return result;
}

/** A short path near the shape: its sample mutated, or drawn from its characters. */
function shortPath(random: Random, { sample, literals }: Generated): string {
  const prefix = sample.slice(0, sample.indexOf('/', 1) + 1);
  const chars = [...ALPHABET, ...literals];
  if (random.chance(0.3)) {
    let body = '';
    for (let length = random.int(0, 16); length > 0; length--) body += random.pick(chars);
    return prefix + body;
  }
  const cut = [...sample];
  for (let edits = random.int(0, 3); edits > 0; edits--) {
    const at = random.int(prefix.length, Math.max(prefix.length, cut.length));
    const kind = random.int(0, 2);
    if (kind === 0) cut.splice(at, 0, random.pick(chars));
    else if (kind === 1) cut.splice(at, 1);
    else cut.splice(at, 1, random.pick(chars));
  }
  return cut.join('');
}

/** Long paths that fit the shape's literals almost everywhere and fail late: what backtracking is slowest on. */
function hostilePaths(random: Random, { sample, literals }: Generated, length: number): string[] {
  const prefix = sample.slice(0, sample.indexOf('/', 1) + 1);
  const fill = (unit: string) =>
    unit.repeat(Math.ceil(length / Math.max(1, unit.length))).slice(0, length - prefix.length - 5);
  const unit = literals.length > 0 ? random.pick(literals) : '-';
  const mixed = literals.length > 1 ? literals.join('') : `${unit}a`;
  return [
    `${prefix}${fill(unit)}/`,
    `${prefix}${fill(unit)}!`,
    `${prefix}${fill(mixed)}`,
    `${prefix}${fill(unit)}${sample.slice(prefix.length)}/`,
    `${prefix}${fill(`${unit}1`)}.pnx`,
  ];
}

/**
 * The matcher as it was before issue 26: one regular expression per shape, each
 * unconstrained parameter `[^/]+`, each requirement in place, and the failing requirement
 * read off the same expression with every parameter unconstrained. Fed short paths only.
 */
class ReferenceMatcher {
  private readonly shapes: Array<{
    pattern: RegExp;
    loose: RegExp;
    params: Array<{ name: string; requirement: string | undefined }>;
  }>;

  constructor(private readonly route: MatchableRoute) {
    this.shapes = (route.shapes ?? [apiShape(route.path, route.requirements ?? {})]).map((shape) => {
      let source = '';
      let loose = '';
      const params: Array<{ name: string; requirement: string | undefined }> = [];
      for (const part of shape) {
        if (typeof part === 'string') {
          source += escapeRegex(part);
          loose += escapeRegex(part);
          continue;
        }
        const group = `(?<p${params.length}>`;
        source += `${group}${part.requirement ?? '[^/]+'})`;
        loose += `${group}${part.name === '*' ? '.*' : '[^/]+'})`;
        params.push({ name: part.name, requirement: part.name === '*' ? undefined : part.requirement });
      }
      return { pattern: new RegExp(`^${source}$`), loose: new RegExp(`^${loose}$`), params };
    });
  }

  matches(path: string): boolean {
    return this.shapes.some((shape) => shape.pattern.test(decode(path)));
  }

  /** The reason `trace('GET', path)` gives for the route. */
  reason(path: string): string {
    const { name } = this.route;
    if (this.matches(path)) return `Route "${name}" matches`;
    for (const shape of this.shapes) {
      const values = shape.loose.exec(decode(path))?.groups;
      if (!values) continue;
      for (const [index, param] of shape.params.entries()) {
        if (
          param.requirement !== undefined &&
          !new RegExp(`^(?:${param.requirement})$`).test(values[`p${index}`] ?? '')
        ) {
          return `Route "${name}" almost matches but requirement for "${param.name}" does not match (${param.requirement})`;
        }
      }
    }
    return `Route "${name}" does not match: path "${this.route.path}" does not match`;
  }
}

function apiShape(path: string, requirements: Readonly<Record<string, string>>): PathShape {
  const parts: PathShape[number][] = [];
  let last = 0;
  for (const match of path.matchAll(/\{([^{}]+)\}/g)) {
    if (match.index > last) parts.push(path.slice(last, match.index));
    parts.push({ name: match[1]!, requirement: requirements[match[1]!] });
    last = match.index + match[0].length;
  }
  if (last < path.length) parts.push(path.slice(last));
  return parts;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function decode(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** Over the wire: the methods the router leaves to the matcher, with long paths that nearly fit a fuzz route's shape. */
export const routeShapes: Family = {
  name: 'route shapes: hostile paths',
  make(random) {
    const { path } = random.pick(ROUTE_SHAPE_PATHS);
    const prefix = path.slice(0, path.indexOf('{'));
    const unit = random.pick(['-', '.', '-1', '.png', '-x', '-a.']);
    const length = random.pick([500, 2_000, 4_000, 8_000]);
    const end = random.pick(['/', '!', '.pnx', '', '/x.y-z']);
    const target = `${prefix}${unit.repeat(Math.ceil(length / unit.length)).slice(0, Math.max(0, length - prefix.length - end.length))}${end}`;
    const method = random.pick(['POST', 'PUT', 'DELETE', 'PATCH']);
    return {
      name: `${method} ${prefix}${JSON.stringify(unit)} x ${length}${end}`,
      bytes: requestBytes({ method, target, headers: [['Content-Length', '0']] }),
      methods: [method],
      rules: [
        statusRule('issue 26: a path near a route shape gets its 404 or 405 (414 past the URL limit)', [404, 405, 414]),
      ],
    };
  },
};

export const ROUTE_SHAPE_FAMILIES: readonly Family[] = [routeShapes];
