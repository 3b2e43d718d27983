/**
 * How a report is turned into the strings a store keeps, and back: the one place every report passes
 * before it is kept, so its secrets are redacted and its size bounded here (`report-bounds.ts`),
 * whichever collector filled it. The stack trace is kept apart under a hash of its JSON: every 404
 * shares one trace, so a store keeps it once.
 */
import { createHash } from 'node:crypto';
import { Redactor } from '../redaction/redact.js';
import type { Report, ReportSummary } from './report.js';
import { boundedSections, boundedTraceJson, cutString } from './report-bounds.js';
import { reportFacts, type StoredFacts } from './report-facts.js';
import { ThrowView } from '../../debug/throw-views.js';

export interface EncodedTrace {
  /** Names the trace: sha256 of its JSON, base64url. */
  hash: string;
  json: string;
}

export interface EncodedReport extends ReportSummary, StoredFacts {
  /** The collectors' sections as JSON, the exception's trace left out. */
  data: string;
  trace: EncodedTrace | undefined;
}

/**
 * The exception collector hands the same trace array to every report of one throw path:
 * its JSON and hash are computed once per array.
 */
const encodedTraces = new ThrowView<object, EncodedTrace>();

function encodeTrace(trace: object): EncodedTrace {
  const json = boundedTraceJson(trace);
  return { hash: createHash('sha256').update(json).digest('base64url'), json };
}

/** Reports encoded without a redactor of their own still lose the credential-like values. */
const CREDENTIALS_ONLY = new Redactor();

export function encodeReport(report: Report, redactor: Redactor = CREDENTIALS_ONLY): EncodedReport {
  const { token, time, method, status, ip, duration, collectors } = report;
  const url = cutString(redactor.url(report.url));
  const exception = collectors.exception as { trace?: unknown } | undefined;
  const trace = exception?.trace;
  // From the sections as collected: the fingerprint's message is masked, not redacted.
  const facts = reportFacts(report.url, collectors);
  let data: string;
  let encoded: EncodedTrace | undefined;
  if (typeof trace !== 'object' || trace === null) data = boundedSections(collectors, redactor);
  else {
    encoded = encodedTraces.of(trace, encodeTrace);
    data = boundedSections({ ...collectors, exception: { ...exception, trace: undefined } }, redactor);
  }
  // Built member by member: spreading the summary and its facts copies through V8's slow path, per report.
  return {
    token,
    time,
    method,
    url,
    status,
    ip,
    duration,
    route: facts.route,
    exception: facts.exception,
    fingerprint: facts.fingerprint,
    statements: facts.statements,
    calls: facts.calls,
    asset: facts.asset,
    data,
    trace: encoded,
  };
}

/** The report again, from what a store kept: its summary, its data and its trace's JSON. */
export function decodeReport(summary: ReportSummary, data: string, traceJson: string | null | undefined): Report {
  const collectors = JSON.parse(data) as Record<string, unknown>;
  if (traceJson)
    collectors.exception = { ...(collectors.exception as object), trace: JSON.parse(traceJson) as unknown };
  const { token, time, method, url, status, ip, duration } = summary;
  return { token, time, method, url, status, ip, duration, collectors };
}
