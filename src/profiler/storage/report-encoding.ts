/**
 * How a report is turned into the strings a store keeps, and back. The exception's stack
 * trace is kept apart under a hash of its JSON: every 404 shares one trace, so a store
 * keeps it once and a report shrinks to its own data.
 *
 * The writer encodes each report as it is queued: the serializing is spread over the
 * requests instead of stalling the response path for a whole batch, and only strings
 * wait in the queue, not a report's object graph.
 */
import { createHash } from 'node:crypto';
import type { Report, ReportSummary } from '../report.js';

export interface EncodedTrace {
  /** Names the trace: sha256 of its JSON, base64url. */
  hash: string;
  json: string;
}

export interface EncodedReport extends ReportSummary {
  /** The collectors' sections as JSON, the exception's trace left out. */
  data: string;
  trace: EncodedTrace | undefined;
}

/**
 * The exception collector hands the same trace array to every report of one throw path:
 * its JSON and hash are computed once per array.
 */
const encodedTraces = new WeakMap<object, EncodedTrace>();

export function encodeReport(report: Report): EncodedReport {
  const { token, time, method, url, status, ip, duration, collectors } = report;
  const exception = collectors.exception as { trace?: unknown } | undefined;
  const trace = exception?.trace;
  if (typeof trace !== 'object' || trace === null) {
    return { token, time, method, url, status, ip, duration, data: sectionsJson(collectors), trace: undefined };
  }
  let encoded = encodedTraces.get(trace);
  if (encoded === undefined) {
    const json = JSON.stringify(trace);
    encoded = { hash: createHash('sha256').update(json).digest('base64url'), json };
    encodedTraces.set(trace, encoded);
  }
  const data = sectionsJson({ ...collectors, exception: { ...exception, trace: undefined } });
  return { token, time, method, url, status, ip, duration, data, trace: encoded };
}

/**
 * The sections as JSON. A section that cannot be serialized (a BigInt, a cycle in an
 * application's collector) costs its own section only, as a collector that throws does.
 */
function sectionsJson(sections: Record<string, unknown>): string {
  try {
    return JSON.stringify(sections);
  } catch {
    const serializable: Record<string, unknown> = {};
    for (const [name, section] of Object.entries(sections)) {
      try {
        JSON.stringify(section);
        serializable[name] = section;
      } catch (error) {
        serializable[name] = { collectorError: `the section cannot be serialized: ${(error as Error).message}` };
      }
    }
    return JSON.stringify(serializable);
  }
}

/** The report again, from what a store kept: its summary, its data and its trace's JSON. */
export function decodeReport(summary: ReportSummary, data: string, traceJson: string | null | undefined): Report {
  const collectors = JSON.parse(data) as Record<string, unknown>;
  if (traceJson) collectors.exception = { ...(collectors.exception as object), trace: JSON.parse(traceJson) as unknown };
  const { token, time, method, url, status, ip, duration } = summary;
  return { token, time, method, url, status, ip, duration, collectors };
}
