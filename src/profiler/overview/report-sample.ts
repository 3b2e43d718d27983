/**
 * A request as the overview counts it, read from its report's sections by their shape (this
 * floor does not know the collectors): its route, its statements, its outgoing calls and its
 * exception's fingerprint.
 */
import type { Report } from '../model/report.js';
import { fingerprintOfSection } from '../model/report-facts.js';
import type { OverviewSample } from './minute-counts.js';

type Sections = Record<string, unknown>;

const record = (value: unknown): Sections | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Sections) : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `https://host:port` of a call's URL, as its upstream; the URL as it is when it cannot be read. */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url.slice(0, 200);
  }
}

function statementsOf(section: unknown): OverviewSample['statements'] {
  const database = record(section);
  const texts = list(database?.texts);
  return list(database?.statements).flatMap((entry) => {
    const statement = record(entry);
    const at = number(statement?.text);
    const statementText = at === null ? null : text(texts[at]);
    if (statement === undefined || statementText === null) return [];
    return [
      { system: text(statement.system) ?? 'sql', text: statementText, durationMs: number(statement.duration) ?? 0 },
    ];
  });
}

function callsOf(section: unknown): OverviewSample['calls'] {
  return list(record(section)?.calls).flatMap((entry) => {
    const call = record(entry);
    const url = text(call?.url);
    if (call === undefined || url === null) return [];
    const status = number(call.status);
    return [
      {
        method: text(call.method) ?? 'GET',
        host: hostOf(url),
        durationMs: number(call.duration),
        failed: call.error !== null && call.error !== undefined ? true : status !== null && status >= 500,
      },
    ];
  });
}

/** What the overview counts of `report`; `kept`: whether the report is stored, for the overview's links to it. */
export function sampleOfReport(report: Report, kept = true): OverviewSample {
  const { collectors } = report;
  const fingerprint = fingerprintOfSection(collectors.exception);
  return {
    time: report.time,
    method: report.method,
    route: text(record(record(collectors.routing)?.matched)?.path),
    status: report.status,
    durationMs: report.duration,
    token: kept ? report.token : null,
    statements: statementsOf(collectors.database),
    calls: callsOf(collectors.httpClient),
    exception:
      fingerprint === undefined
        ? null
        : {
            fingerprint: fingerprint.key,
            className: fingerprint.class,
            place: fingerprint.site,
            message: fingerprint.message,
          },
  };
}
