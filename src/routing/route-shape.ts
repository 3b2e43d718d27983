/**
 * The shape under which the router files a path, so that two routes it could not tell apart
 * are refused when they are declared, in vigil's syntax, rather than by Fastify at start.
 */
const PARAMETER = /\{([^{}]+)\}/g;

/**
 * The key find-my-way (Fastify's router) files `path` under: the path with each parameter
 * segment reduced to its static prefix, then `:`, and, when the segment has a requirement or
 * text after a parameter, `()` plus that text per parameter: the names and the requirements
 * themselves do not count. So `/b/{x}` and `/b/{y}` clash, as do `/b/{x}` and `/b/{y}` with
 * two different requirements, while `/b/{x}` and `/b/{y}` with one requirement do not.
 */
export function routeShape(path: string, requirements: Readonly<Record<string, string>>): string {
  return path
    .split('/')
    .map((segment) => {
      const first = segment.indexOf('{');
      if (first === -1) return segment;
      const parts: string[] = [];
      let regex = false;
      let last = first;
      for (const match of segment.slice(first).matchAll(PARAMETER)) {
        const start = first + match.index;
        if (start > last) parts[parts.length - 1] += segment.slice(last, start);
        if (requirements[match[1]!] !== undefined) regex = true;
        parts.push('()');
        last = start + match[0].length;
      }
      if (last < segment.length) {
        parts[parts.length - 1] += segment.slice(last);
        regex = true;
      }
      if (parts.some((part) => part.length > 2)) regex = true;
      return `${segment.slice(0, first)}:${regex ? parts.join('') : ''}`;
    })
    .join('/');
}

/** The requirement of each parameter in path order (`''` for none): compared across two routes of one shape. */
export function requirementsInOrder(path: string, requirements: Readonly<Record<string, string>>): string {
  return JSON.stringify([...path.matchAll(PARAMETER)].map((match) => requirements[match[1]!] ?? ''));
}
