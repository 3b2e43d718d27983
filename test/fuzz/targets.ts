/**
 * Where the fuzzer aims: the paths of the demo and fuzz routes (none that sleeps, spins
 * or allocates on request), unrouted ones, and the profiler's, each with a marker slot.
 */
import type { Random } from './prng.js';

/** Paths a random case may name; `{m}` is replaced by the case's marker, percent-encoded or raw. */
export const PATHS = [
  '/hello',
  '/items',
  '/items/7',
  '/items/{m}',
  '/with-slash',
  '/with-slash/',
  '/with-slash?q={m}',
  '/upload',
  '/echo',
  '/isolated-echo',
  '/check?v={m}',
  '/check-here?v={m}',
  '/robots.txt',
  '/nope/{m}',
  '/',
  '/_profiler',
  '/_profiler/search?url={m}',
  '/_profiler/zzzzzz',
  '/isolated-header?v=ok',
  '/echo-header?v=ok',
] as const;

/** Routes that read a body. */
export const BODY_TARGETS = ['/echo', '/isolated-echo', '/upload', '/items', '/nope'] as const;

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The error formats a client can ask for, and odd Accept values. */
export const ACCEPTS = [
  'text/html',
  'application/json',
  'application/problem+json',
  'application/xml',
  'text/plain',
  '*/*',
  'image/png',
  'text/html;q=0, application/json;q=0',
] as const;

/** A path from {@link PATHS} with the marker put in raw (where the parser lets it) or percent-encoded. */
export function pathWith(random: Random, marker: string): string {
  const path = random.pick(PATHS);
  const mark = random.chance(0.5) ? encodeURIComponent(marker) : marker;
  return path.replace('{m}', mark);
}
