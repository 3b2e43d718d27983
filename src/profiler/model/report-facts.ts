/**
 * The facts of a report that its store keeps beside the summary, to list and search by them
 * without opening the report: the route that answered, the exception and its fingerprint, how
 * many statements and outgoing calls it made, and whether it was a browser's own request for
 * an icon or a `.well-known` file. Read from the sections by their shape: this floor does not
 * know the collectors.
 */
import { fingerprintException } from './exception-fingerprint.js';

export interface ReportFacts {
  /** The pattern of the route that answered (`/api/products/:id`); null when none did. */
  route: string | null;
  /** The exception's class; null when none was raised. */
  exception: string | null;
  /** The exception's fingerprint (`exception-fingerprint.ts`); null when none was raised. */
  fingerprint: string | null;
  /** Database statements recorded, those beyond the per-request bound included; null when not collected. */
  statements: number | null;
  /** Outgoing HTTP calls recorded, likewise. */
  calls: number | null;
}

export interface StoredFacts extends ReportFacts {
  /** A request a browser makes on its own (`favicon.ico`, `apple-touch-icon*`, `.well-known/*`). */
  asset: boolean;
}

type Sections = Record<string, unknown>;

const BROWSER_ASSET = /^\/(?:favicon\.ico|apple-touch-icon[^/]*|\.well-known\/.*)$/i;

/** True for the path of a request a browser makes on its own, whatever the page. */
export function isBrowserAsset(url: string): boolean {
  let path = url;
  try {
    path = new URL(url, 'http://localhost').pathname;
  } catch {
    return false;
  }
  return BROWSER_ASSET.test(path);
}

const record = (value: unknown): Sections | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Sections) : undefined;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function counted(section: unknown, list: string): number | null {
  const entries = record(section)?.[list];
  if (!Array.isArray(entries)) return null;
  const omitted = record(section)?.omitted;
  return entries.length + (typeof omitted === 'number' && Number.isSafeInteger(omitted) ? omitted : 0);
}

function exceptionFacts(section: unknown): Pick<ReportFacts, 'exception' | 'fingerprint'> {
  const exception = record(section);
  const className = text(exception?.class);
  if (!exception || className === null) return { exception: null, fingerprint: null };
  const line = exception.line;
  const fingerprint = fingerprintException({
    class: className,
    message: text(exception.message) ?? '',
    file: text(exception.file),
    line: typeof line === 'number' ? line : null,
  });
  return { exception: className, fingerprint: fingerprint.key };
}

/** The facts of a report, from its URL and its sections. */
export function reportFacts(url: string, collectors: Sections): StoredFacts {
  const matched = record(record(collectors.routing)?.matched);
  return {
    route: text(matched?.path),
    ...exceptionFacts(collectors.exception),
    statements: counted(collectors.database, 'statements'),
    calls: counted(collectors.httpClient, 'calls'),
    asset: isBrowserAsset(url),
  };
}
