/**
 * A route's path shape matched against a request path in time linear in the path's length,
 * whatever the shape: the router's questions (405, 301, closest routes) are asked of every
 * unmatched request, so a path that fails must fail fast however its text is arranged.
 */
import type { PathShape } from './fastify-path.js';

/**
 * The longest parameter value a requirement is tried on: the router never matches a longer
 * one, as vigil configures it (its `maxParamLength`).
 */
export const MAX_PARAM_LENGTH = 500;

/** The characters one segment's requirements may be tried on, in all, before it counts as no match. */
const REQUIREMENT_BUDGET = 64 * MAX_PARAM_LENGTH;

/** A request path as the matcher reads it: its text and where each segment starts and ends. */
export interface SplitPath {
  text: string;
  /** `bounds[k] + 1` to `bounds[k + 1]` is segment k: -1, each slash's index, then the length. */
  bounds: readonly number[];
}

export function splitPath(text: string): SplitPath {
  const bounds = [-1];
  for (let i = text.indexOf('/'); i !== -1; i = text.indexOf('/', i + 1)) bounds.push(i);
  bounds.push(text.length);
  return { text, bounds };
}

type Piece = { kind: 'text'; text: string } | { kind: 'param'; requirement: RegExp | undefined } | { kind: 'rest' };

interface ShapeParam {
  name: string;
  requirement: string | undefined;
}

export interface CompiledShape {
  /** True when the path has this shape; `strict` false ignores requirements. */
  matches(path: SplitPath, strict: boolean): boolean;
  /** The parameters' values, by position, when the path has this shape requirements aside; each as long as it can be, first to last. */
  values(path: SplitPath): string[] | undefined;
  /** Parameter names by position and their requirements (none for a wildcard). */
  readonly params: readonly ShapeParam[];
  /** The literal text before the first parameter: the cheapest way to tell near from far. */
  readonly staticPrefix: string;
  /** The shape as the regular expression source it was once matched with: the route table's version hashes it. */
  readonly source: string;
}

/**
 * The matcher of `shape`. The path is cut at its slashes once; a parameter never takes a
 * slash (as in the router), so each segment of the shape is matched with its own segment of
 * the path, and only a final wildcard takes the rest. Within a segment, a parameter's
 * possible ends are tracked as a set of positions, one pass per part of the shape, instead
 * of backtracking over every split. A requirement (the application's own regular
 * expression) is only ever tried on a delimited value of at most {@link MAX_PARAM_LENGTH}
 * characters, within a budget per segment.
 *
 * @example
 * ```ts
 * const shape = compileShape(['/date/', { name: 'y', requirement: undefined }, '-', { name: 'm', requirement: '\\d+' }]);
 * shape.matches(splitPath('/date/2024-01'), true); // true
 * shape.values(splitPath('/date/a-b-c')); // ['a-b', 'c']: the first parameter as long as it can be
 * ```
 */
export function compileShape(shape: PathShape): CompiledShape {
  const segments: Piece[][] = [[]];
  let tail: Piece[] | undefined;
  const params: ShapeParam[] = [];
  let source = '';
  for (const part of shape) {
    const current = tail ?? segments.at(-1)!;
    if (typeof part === 'string') {
      source += escapeRegExp(part);
      // After a wildcard, slashes are text like any other: the rest is matched as one.
      const [first, ...others] = tail ? [part] : part.split('/');
      if (first !== '') current.push({ kind: 'text', text: first! });
      for (const other of others) segments.push(other === '' ? [] : [{ kind: 'text', text: other }]);
    } else if (part.name === '*') {
      source += `(?<p${params.length}>${part.requirement ?? ANY_SEGMENT})`;
      params.push({ name: part.name, requirement: undefined });
      // The wildcard's segment and whatever follows it are matched against the rest of the path.
      tail ??= segments.pop()!;
      tail.push({ kind: 'rest' });
    } else {
      source += `(?<p${params.length}>${part.requirement ?? ANY_SEGMENT})`;
      params.push({ name: part.name, requirement: part.requirement });
      current.push({
        kind: 'param',
        requirement: part.requirement === undefined ? undefined : new RegExp(`^(?:${part.requirement})$`),
      });
    }
  }
  const firstParam = shape.findIndex((part) => typeof part !== 'string');
  const staticPrefix = (firstParam === -1 ? shape : shape.slice(0, firstParam)).join('');

  const fits = (path: SplitPath, strict: boolean): boolean => {
    const { text, bounds } = path;
    const count = bounds.length - 1;
    if (tail ? count <= segments.length : count !== segments.length) return false;
    for (let k = 0; k < segments.length; k++) {
      if (!matchSegment(segments[k]!, text, bounds[k]! + 1, bounds[k + 1]!, strict)) return false;
    }
    return tail === undefined || matchSegment(tail, text, bounds[segments.length]! + 1, text.length, strict);
  };

  return {
    params,
    staticPrefix,
    // As the RegExp itself gives it (slashes escaped), so that versions stay what they were.
    source: new RegExp(`^${source}$`).source,
    matches: fits,
    values(path) {
      if (!fits(path, false)) return undefined;
      const { text, bounds } = path;
      const found: string[] = [];
      for (let k = 0; k < segments.length; k++)
        found.push(...segmentValues(segments[k]!, text, bounds[k]! + 1, bounds[k + 1]!));
      if (tail) found.push(...segmentValues(tail, text, bounds[segments.length]! + 1, text.length));
      return found;
    },
  };
}

/** Whether `text[from, to)` is the segment `pieces` describes. */
function matchSegment(pieces: readonly Piece[], text: string, from: number, to: number, strict: boolean): boolean {
  const length = to - from;
  // Most segments are one literal or one parameter: answered without the general pass.
  if (pieces.length === 0) return length === 0;
  if (pieces.length === 1) {
    const only = pieces[0]!;
    if (only.kind === 'text') return length === only.text.length && text.startsWith(only.text, from);
    if (only.kind === 'rest') return true;
    // A lone parameter is only ever a segment of its own: its text holds no slash.
    if (!strict || only.requirement === undefined) return length > 0;
    return length <= MAX_PARAM_LENGTH && only.requirement.test(text.slice(from, to));
  }
  return reachable(pieces, text, from, to, strict, pieces.length)[length] === 1;
}

/**
 * Where the first `upTo` pieces can end, as offsets from `from`: one pass per piece over
 * the segment, so the work grows with the segment's length times the number of pieces
 * (plus a bounded budget for requirements), never with the number of ways to split it.
 */
function reachable(
  pieces: readonly Piece[],
  text: string,
  from: number,
  to: number,
  strict: boolean,
  upTo: number,
): Uint8Array {
  const length = to - from;
  let reach = new Uint8Array(length + 1);
  reach[0] = 1;
  let budget = REQUIREMENT_BUDGET;
  for (let k = 0; k < upTo; k++) {
    const piece = pieces[k]!;
    const next = new Uint8Array(length + 1);
    if (piece.kind === 'text') {
      const size = piece.text.length;
      for (let i = 0; i + size <= length; i++) {
        if (reach[i] === 1 && text.startsWith(piece.text, from + i)) next[i + size] = 1;
      }
    } else if (piece.kind === 'rest') {
      let seen = false;
      for (let i = 0; i <= length; i++) next[i] = (seen ||= reach[i] === 1) ? 1 : 0;
    } else if (!strict || piece.requirement === undefined) {
      // A non-empty value without a slash: from any reachable start to any later position before a slash.
      let open = false;
      for (let i = 0; i <= length; i++) {
        if (open) next[i] = 1;
        if (i < length) open = (open || reach[i] === 1) && text.charCodeAt(from + i) !== SLASH;
      }
    } else {
      budget = tryRequirement(piece.requirement, pieces[k + 1], reach, next, text, from, to, budget);
      // Out of budget: only a hostile path splits so many ways; it is taken as no match.
      if (budget < 0) return new Uint8Array(length + 1);
    }
    reach = next;
  }
  return reach;
}

/**
 * Marks in `next` the ends of every value the requirement takes from a reachable start:
 * only ends the next piece can start at (its text's occurrences, or the segment's end when
 * it is the last), values without a slash and no longer than {@link MAX_PARAM_LENGTH}.
 * Returns the budget left, negative when it ran out.
 */
function tryRequirement(
  requirement: RegExp,
  following: Piece | undefined,
  reach: Uint8Array,
  next: Uint8Array,
  text: string,
  from: number,
  to: number,
  budget: number,
): number {
  const length = to - from;
  const ends: number[] = [];
  if (following === undefined) ends.push(length);
  else if (following.kind === 'text') {
    for (
      let at = text.indexOf(following.text, from);
      at !== -1 && at <= to - following.text.length;
      at = text.indexOf(following.text, at + 1)
    )
      ends.push(at - from);
  } else {
    for (let i = 0; i <= length; i++) ends.push(i);
  }
  let first = 0;
  let slash = -1;
  for (let start = 0; start <= length; start++) {
    if (reach[start] !== 1) continue;
    if (slash < from + start) {
      slash = text.indexOf('/', from + start);
      if (slash === -1 || slash > to) slash = to;
    }
    const limit = Math.min(start + MAX_PARAM_LENGTH, slash - from);
    while (first < ends.length && ends[first]! < start) first++;
    for (let e = first; e < ends.length && ends[e]! <= limit; e++) {
      const end = ends[e]!;
      if (next[end] === 1) continue;
      budget -= end - start + 1;
      if (budget < 0) return budget;
      if (requirement.test(text.slice(from + start, from + end))) next[end] = 1;
    }
  }
  return budget;
}

/**
 * The values of a segment the path is known to fit, requirements aside: each parameter as
 * long as the rest still fits, first to last (as a backtracking `[^/]+` would take them).
 */
function segmentValues(pieces: readonly Piece[], text: string, from: number, to: number): string[] {
  const length = to - from;
  // restFits(k, i): pieces k.. match text[from + i, to); read off the reversed segment.
  const reversed = reverse(text.slice(from, to));
  const mirrored = pieces
    .map((piece): Piece => (piece.kind === 'text' ? { kind: 'text', text: reverse(piece.text) } : piece))
    .reverse();
  const restFits = (k: number, i: number) => (k === pieces.length ? i === length : suffixReach[k]![length - i] === 1);
  const suffixReach: Uint8Array[] = [];
  for (let k = 0; k < pieces.length; k++)
    suffixReach.push(reachable(mirrored, reversed, 0, reversed.length, false, pieces.length - k));
  const values: string[] = [];
  let at = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (piece.kind === 'text') {
      at += piece.text.length;
      continue;
    }
    let end = piece.kind === 'rest' ? length : (text.indexOf('/', from + at) + 1 || to + 1) - 1 - from;
    end = Math.min(end, length);
    while (end > at && !restFits(k + 1, end)) end--;
    values.push(text.slice(from + at, from + end));
    at = end;
  }
  return values;
}

/** Reversed by UTF-16 code unit, so that offsets correspond. */
const reverse = (text: string) => text.split('').reverse().join('');

const SLASH = 0x2f;
const ANY_SEGMENT = '[^/]+';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
