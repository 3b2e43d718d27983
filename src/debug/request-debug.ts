/** Where the profiler serves reports, and the link to one; the kernel never profiles its own pages. */
export const PROFILER_PATH = '/_profiler';

export function reportUrl(origin: string, token: string): string {
  return `${origin}${PROFILER_PATH}/${token}`;
}

export function isProfilerPath(path: string): boolean {
  return path === PROFILER_PATH || path.startsWith(`${PROFILER_PATH}/`) || path.startsWith(`${PROFILER_PATH}?`);
}
