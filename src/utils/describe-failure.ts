/** A failure for a log line: its code first (`SQLITE_FULL: database or disk is full`), the kind of trouble at a glance. */
export function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
