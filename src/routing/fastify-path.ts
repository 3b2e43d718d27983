/**
 * A Fastify route's path, read as find-my-way reads it, into the shapes the route matcher
 * compares request paths with: `/items/:id(^\\d+$)` is the literal `/items/` then a
 * parameter `id` that must match `\d+`.
 */

/** A literal, or a parameter with the expression its value must match as a whole (none: up to the next `/`). */
export type PathPart = string | { readonly name: string; readonly requirement: string | undefined };
export type PathShape = readonly PathPart[];

/** find-my-way's own test for an optional last parameter, which it registers as two routes. */
const OPTIONAL_PARAM = /(\/:[^/()]*?)\?(\/?)/;

/**
 * The shapes of a path: one, or two for an optional last parameter (with it, and without).
 *
 * @example
 * ```ts
 * fastifyPathShapes('/posts/:id?'); // [['/posts/', { name: 'id', requirement: undefined }], ['/posts']]
 * ```
 */
export function fastifyPathShapes(path: string): PathShape[] {
  const optional = OPTIONAL_PARAM.exec(path);
  if (optional && optional.index + optional[0].length === path.length) {
    return [parsePath(path.replace(OPTIONAL_PARAM, '$1$2')), parsePath(path.replace(OPTIONAL_PARAM, '$2') || '/')];
  }
  return [parsePath(path)];
}

/** Characters that end a parameter's name (find-my-way's `(`, `-`, `.` and `/`). */
const NAME_END = new Set(['(', '-', '.', '/']);

function parsePath(path: string): PathShape {
  const parts: PathPart[] = [];
  let literal = '';
  const flush = () => {
    if (literal !== '') parts.push(literal);
    literal = '';
  };
  for (let i = 0; i < path.length; i++) {
    const char = path[i]!;
    if (char === ':' && path[i + 1] === ':') {
      literal += ':';
      i++;
    } else if (char === ':') {
      let end = i + 1;
      while (end < path.length && !NAME_END.has(path[end]!)) end++;
      const name = path.slice(i + 1, end);
      let requirement: string | undefined;
      if (path[end] === '(') {
        const close = closingParenthesis(path, end);
        requirement = path
          .slice(end + 1, close)
          .replace(/^\^/, '')
          .replace(/\$$/, '');
        end = close + 1;
      }
      flush();
      parts.push({ name, requirement });
      i = end - 1;
    } else if (char === '*') {
      // find-my-way allows it only last: it takes the rest of the path.
      flush();
      parts.push({ name: '*', requirement: '.*' });
    } else {
      literal += char;
    }
  }
  flush();
  return parts;
}

/** The `)` closing the `(` at `open`, past nested and escaped ones (find-my-way's own scan). */
function closingParenthesis(path: string, open: number): number {
  let depth = 1;
  for (let i = open + 1; i < path.length; i++) {
    const char = path[i];
    if (char === '\\') i++;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  // Fastify refuses such a path when the route is added; read the rest as the expression.
  return path.length;
}
