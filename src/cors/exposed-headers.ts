/**
 * Adds names to the `Access-Control-Expose-Headers` of a cross-origin answer, whoever wrote
 * its CORS headers (vigil's policy or a plugin's): a front end on another origin can then
 * read them. An answer without `Access-Control-Allow-Origin` is not cross-origin readable,
 * and is left alone.
 */
import type { FastifyReply } from 'fastify';

/** `existing` with each of `names` it lacks (compared without case) appended, in order. */
export function withExposed(existing: string, names: readonly string[]): string {
  const listed = new Set(
    existing
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const added = names.filter((name) => !listed.has(name.toLowerCase()));
  if (added.length === 0) return existing;
  return listed.size === 0 ? added.join(', ') : `${existing}, ${added.join(', ')}`;
}

export function exposeHeaders(reply: FastifyReply, names: readonly string[]): void {
  if (!reply.hasHeader('access-control-allow-origin')) return;
  const existing = reply.getHeader('access-control-expose-headers');
  const value = Array.isArray(existing) ? existing.join(', ') : existing === undefined ? '' : String(existing);
  reply.header('access-control-expose-headers', withExposed(value, names));
}
