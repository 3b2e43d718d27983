/**
 * The facts of a report that its store keeps beside the summary, to list and search by them
 * without opening the report: the route that answered, the exception and its fingerprint, how
 * many statements and outgoing calls it made, and whether it was a browser's own request for
 * an icon or a `.well-known` file. Read from the sections by their shape: this floor does not
 * know the collectors.
 */
import { relative } from 'node:path';
import { isUnder, projectRoot } from '../../debug/project-root.js';
import { type ExceptionFingerprint, fingerprintException } from './exception-fingerprint.js';

export interface ReportFacts {
  /** The pattern of the route that answered (`/api/products/:id`); null when none did. */
  route: string | null;
  /** The exception's class; null when none was raised. */
  exception: string | null;
  /** The exception's fingerprint (`exception-fingerprint.ts`); null when none was raised. */
  fingerprint: string | null;
  /** Database statements recorded, those beyond the per-request bound included (0 without a section); null in reports stored before the count. */
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
function isBrowserAsset(url: string): boolean {
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

function counted(section: unknown, list: string): number {
  const entries = record(section)?.[list];
  if (!Array.isArray(entries)) return 0;
  const omitted = record(section)?.omitted;
  return entries.length + (typeof omitted === 'number' && Number.isSafeInteger(omitted) ? omitted : 0);
}

/** A file of the project as a path from its root: one failure has one fingerprint wherever the project is deployed. */
function projectFile(file: string | null): string | null {
  return file !== null && isUnder(file, projectRoot()) ? relative(projectRoot(), file) : file;
}

/** The fingerprint of a report's exception section; undefined when it holds none. */
export function fingerprintOfSection(section: unknown): ExceptionFingerprint | undefined {
  const exception = record(section);
  const className = text(exception?.class);
  if (!exception || className === null) return undefined;
  const line = exception.line;
  return fingerprintException({
    class: className,
    message: text(exception.message) ?? '',
    file: projectFile(text(exception.file)),
    line: typeof line === 'number' ? line : null,
  });
}

function exceptionFacts(section: unknown): Pick<ReportFacts, 'exception' | 'fingerprint'> {
  const fingerprint = fingerprintOfSection(section);
  return fingerprint
    ? { exception: fingerprint.class, fingerprint: fingerprint.key }
    : { exception: null, fingerprint: null };
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
