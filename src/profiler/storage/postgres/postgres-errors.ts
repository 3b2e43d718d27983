/**
 * What a failure of the PostgreSQL store means, from the driver's error: the server cannot
 * be reached or cannot serve now (try again later), one report's data cannot be stored
 * (that report is refused), or something else (the store failed).
 */
import { loadedPg } from './postgres-driver.js';

/**
 * SQLSTATEs of a server that cannot serve now: connection exceptions (08), insufficient
 * resources (53: too many connections, a full disk), a shutdown or a start under way
 * (57P01-57P03), a statement cut by the store's own timeout (57014), a lock not had in
 * time (55P03), a transaction the server gave up to resolve a conflict (40001, 40P01),
 * and the server's own I/O errors (58).
 */
const UNAVAILABLE_STATE = /^(08|53|57P0[123]$|57014$|55P03$|40001$|40P01$|58)/;
/** Data exceptions (22: a NUL character in text, a bad encoding) and limits exceeded (54): one report's fault. */
const REPORT_STATE = /^(22|54)/;
/** What node-postgres says when a connection fails, times out or is cut; these carry no SQLSTATE. */
const CONNECTION_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/**
 * The SQLSTATE of an error the server sent, or undefined for an error of the client or the
 * network. The server's errors are those of the driver a store loaded (`postgres-driver.ts`).
 */
function sqlState(error: unknown): string | undefined {
  const DatabaseError = loadedPg()?.DatabaseError;
  return DatabaseError !== undefined && error instanceof DatabaseError && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/** True when the server cannot be reached or cannot serve now: the same call may succeed later. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const state = sqlState(error);
  if (state !== undefined) return UNAVAILABLE_STATE.test(state);
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  // Network errors: ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EAI_AGAIN, EHOSTUNREACH...
  if (typeof syscall === 'string' || (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code))) return true;
  return CONNECTION_MESSAGE.test(error.message);
}

/** True when the server refused one report's data (it cannot be stored, whatever the other reports). */
export function isReportDataError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && REPORT_STATE.test(state);
}

/** The error as a line: the SQLSTATE or the network code first (`57P01: terminating connection...`). */
export function describePgError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = sqlState(error) ?? (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
