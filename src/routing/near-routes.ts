/**
 * "Did you mean": the declared routes whose path is a few letters from a path no route
 * took (`/api/product/3` for `/api/products/{id}`). Paths are compared segment by
 * segment: a segment holding a parameter takes anything, a literal one counts its edits.
 * The work per path is bounded, since the route table may be large and the path hostile.
 */
import type { PathShape } from './fastify-path.js';
import { editDistance } from '../utils/edit-distance.js';

/** A route near the path, and how many edits away. */
export interface NearRoute {
  name: string;
  path: string;
  methods: readonly string[];
  distance: number;
}

/** A route as compared: one outline per shape of its path. */
interface NearRouteCandidate {
  name: string;
  path: string;
  methods: readonly string[];
  shapes: readonly PathShape[];
}

/** A path shape as compared: its segments, null where a parameter takes the segment, and a final wildcard. */
interface Outline {
  /** The route's place in the table: equals are offered in declaration order. */
  order: number;
  segments: ReadonlyArray<string | null>;
  /** A final `*`: the segments past the outline's are taken too. */
  rest: boolean;
  /** Edits allowed: a third of its literal letters, at most {@link MAX_EDITS}, so short literals take near misses only. */
  allowed: number;
}

/** Longer paths (and paths of more segments) get no suggestion: a path a person typed is shorter. */
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENTS = 32;
/** Edits at most, whatever the length of the route's literals. */
const MAX_EDITS = 3;
/** Edit-distance cells computed per path at most, across all routes: past it, what was found stands. */
const CELL_BUDGET = 20_000;
/** Suggestions at most. */
const MAX_SUGGESTIONS = 3;

export class NearRoutes {
  private readonly routes: readonly NearRouteCandidate[];
  /** Outlines by their number of segments, in declaration order: a path is compared with those of its own number only. */
  private readonly bySegments = new Map<number, Outline[]>();
  /** Outlines with a final wildcard, which take paths of their number of segments or more. */
  private readonly withRest: Outline[] = [];

  constructor(routes: readonly NearRouteCandidate[]) {
    this.routes = routes;
    routes.forEach((route, order) => {
      for (const shape of route.shapes) {
        const outline = outlineOf(shape, order);
        if (outline.rest) this.withRest.push(outline);
        else {
          const same = this.bySegments.get(outline.segments.length);
          if (same) same.push(outline);
          else this.bySegments.set(outline.segments.length, [outline]);
        }
      }
    });
  }

  /** The routes within a few edits of `path` (decoded, without its query), closest first, then in declaration order. */
  of(path: string): NearRoute[] {
    if (path.length > MAX_PATH_LENGTH) return [];
    const segments = path.split('/', MAX_SEGMENTS + 1);
    if (segments.length > MAX_SEGMENTS) return [];
    const budget = { cells: CELL_BUDGET };
    // The best distance of each route near enough, by its place in the table.
    const best = new Map<number, number>();
    const candidates = [
      this.bySegments.get(segments.length) ?? [],
      this.withRest.filter((outline) => outline.segments.length <= segments.length),
    ];
    for (const outlines of candidates) {
      for (const outline of outlines) {
        if (budget.cells <= 0) break;
        const distance = distanceTo(outline, segments, budget);
        if (distance <= outline.allowed && distance < (best.get(outline.order) ?? Number.POSITIVE_INFINITY))
          best.set(outline.order, distance);
      }
    }
    return [...best]
      .sort(([orderA, a], [orderB, b]) => a - b || orderA - orderB)
      .slice(0, MAX_SUGGESTIONS)
      .map(([order, distance]) => {
        const { name, path: declared, methods } = this.routes[order]!;
        return { name, path: declared, methods, distance };
      });
  }
}

/** The edits from the path's segments to the outline's literals, or Infinity once past the outline's allowance. */
function distanceTo(outline: Outline, segments: readonly string[], budget: { cells: number }): number {
  let total = 0;
  for (let k = 0; k < outline.segments.length; k++) {
    const literal = outline.segments[k];
    if (literal === null || literal === undefined) continue;
    const segment = segments[k]!;
    if (segment === literal) continue;
    const left = outline.allowed - total;
    // The band of cells the bounded distance computes at most.
    budget.cells -= Math.min(segment.length, literal.length + left) * (2 * left + 1);
    total += editDistance(segment, literal, left);
    if (total > outline.allowed) return Number.POSITIVE_INFINITY;
  }
  return total;
}

/** The outline of a shape: its text cut at slashes, a segment with a parameter in it taking anything. */
function outlineOf(shape: PathShape, order: number): Outline {
  const segments: Array<string | null> = [''];
  let rest = false;
  for (const part of shape) {
    if (typeof part !== 'string') {
      if (part.name === '*') {
        segments.pop();
        rest = true;
        break;
      }
      segments[segments.length - 1] = null;
      continue;
    }
    const [first, ...others] = part.split('/');
    const last = segments.length - 1;
    if (segments[last] !== null) segments[last] += first!;
    segments.push(...others);
  }
  let letters = 0;
  for (const literal of segments) letters += literal?.length ?? 0;
  return { order, segments, rest, allowed: Math.min(MAX_EDITS, Math.floor(letters / 3)) };
}
