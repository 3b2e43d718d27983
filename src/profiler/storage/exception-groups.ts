/**
 * The exceptions page's groups, for the pages and the command line: the store's groups by
 * fingerprint, each with the place it was raised and its masked message, read from its
 * newest report.
 */
import type { ExceptionGroupSummary } from '../model/report.js';
import { fingerprintOfSection } from '../model/report-facts.js';
import type { ReportStore } from './report-store.js';

/** The newest reports with an exception that the groups are made of. */
export const EXCEPTION_WINDOW = 10_000;

export interface ExceptionGroup extends ExceptionGroupSummary {
  /** Where it was raised (`file:line`), or `unknown`. */
  site: string;
  /** The message, numbers, ids and quoted values masked. */
  message: string;
}

/** The `limit` groups seen last; a group whose newest report is gone meanwhile keeps its counts, with no place nor message. */
export async function readExceptionGroups(store: ReportStore, limit: number): Promise<ExceptionGroup[]> {
  const groups = await store.exceptionGroups({ window: EXCEPTION_WINDOW, limit });
  return Promise.all(
    groups.map(async (group) => {
      const newest = await store.read(group.newest);
      const fingerprint = fingerprintOfSection(newest?.collectors.exception);
      return { ...group, site: fingerprint?.site ?? 'unknown', message: fingerprint?.message ?? '' };
    }),
  );
}
