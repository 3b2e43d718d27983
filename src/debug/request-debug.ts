/**
 * The debug state a request carries: its token, when a report will be stored for it.
 * Declared on Fastify's request so every stage reads it the same way.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** 6-hex token of this request's report; null outside debug mode and for the profiler's pages. */
    debugToken: string | null;
  }
}

/** Where the profiler serves reports; the kernel never profiles its own pages. */
export const PROFILER_PATH = '/_profiler';

export function reportUrl(origin: string, token: string): string {
  return `${origin}${PROFILER_PATH}/${token}`;
}

export function isProfilerPath(path: string): boolean {
  return path === PROFILER_PATH || path.startsWith(`${PROFILER_PATH}/`) || path.startsWith(`${PROFILER_PATH}?`);
}
