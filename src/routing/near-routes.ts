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
  segments: ReadonlyArray<string | null>;
  /** A final `*`: the segments past the outline's are taken too. */
  rest: boolean;
}

/** Longer paths (and paths of more segments) get no suggestion: a path a person typed is shorter. */
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENTS = 32;
/** Edits at most, whatever the length of the route's literals. */
const MAX_EDITS = 3;
/** Edit-distance cells computed per path at most, across all routes: past it, what was found stands. */
const CELL_BUDGET = 200_000;
/** Suggestions at most. */
const MAX_SUGGESTIONS = 3;

export class NearRoutes {
  private readonly outlines: Array<{ route: NearRouteCandidate; outlines: Outline[] }>;

  constructor(routes: readonly NearRouteCandidate[]) {
    this.outlines = routes.map((route) => ({ route, outlines: route.shapes.map(outlineOf) }));
  }

  /** The routes within a few edits of `path` (decoded, without its query), closest first, then in declaration order. */
  of(path: string): NearRoute[] {
    if (path.length > MAX_PATH_LENGTH) return [];
    const segments = path.split('/');
    if (segments.length > MAX_SEGMENTS) return [];
    const budget = { cells: CELL_BUDGET };
    const near: NearRoute[] = [];
    for (const { route, outlines } of this.outlines) {
      if (budget.cells <= 0) break;
      let best = Number.POSITIVE_INFINITY;
      for (const outline of outlines) best = Math.min(best, distanceTo(outline, segments, budget));
      if (best <= MAX_EDITS) near.push({ name: route.name, path: route.path, methods: route.methods, distance: best });
    }
    // A stable sort keeps declaration order among equals.
    return near.sort((a, b) => a.distance - b.distance).slice(0, MAX_SUGGESTIONS);
  }
}

/**
 * The edits from the path's segments to the outline's literals, or Infinity when the
 * segments cannot line up or the edits pass the outline's allowance: a third of its
 * literal letters, at most {@link MAX_EDITS} (so a route of short literals is suggested for
 * near misses only).
 */
function distanceTo(outline: Outline, segments: readonly string[], budget: { cells: number }): number {
  const count = outline.segments.length;
  if (outline.rest ? segments.length < count : segments.length !== count) return Number.POSITIVE_INFINITY;
  let letters = 0;
  for (const literal of outline.segments) letters += literal?.length ?? 0;
  const allowed = Math.min(MAX_EDITS, Math.floor(letters / 3));
  let total = 0;
  for (let k = 0; k < count; k++) {
    const literal = outline.segments[k];
    if (literal === null || literal === undefined) continue;
    const segment = segments[k]!;
    if (segment === literal) continue;
    const left = allowed - total;
    // The band of cells the bounded distance computes at most.
    budget.cells -= Math.min(segment.length, literal.length + left) * (2 * left + 1);
    total += editDistance(segment, literal, left);
    if (total > allowed) return Number.POSITIVE_INFINITY;
  }
  return total;
}

/** The outline of a shape: its text cut at slashes, a segment with a parameter in it taking anything. */
function outlineOf(shape: PathShape): Outline {
  const segments: Array<string | null> = [''];
  for (const part of shape) {
    if (typeof part !== 'string') {
      if (part.name === '*') return { segments: segments.slice(0, -1), rest: true };
      segments[segments.length - 1] = null;
      continue;
    }
    const [first, ...others] = part.split('/');
    const last = segments.length - 1;
    if (segments[last] !== null) segments[last] += first!;
    segments.push(...others);
  }
  return { segments, rest: false };
}
