/**
 * Sends a corpus to one running service, case by case on fresh TLS connections, and
 * tallies what the checks find. Every `probeEvery` cases (and after a case that hung) the
 * service must still be alive and answer `/robots.txt`; in debug mode the profiler's list
 * page is read for markup too, and each case's stored report is read back.
 */
import { header, type FuzzCase, type Mode } from './cases.js';
import { checkExchange, checkReport, type CheckContext, type Finding, type Kind } from './checks.js';
import { exchange, parseResponses, type ParsedResponse, type Target } from './wire.js';

export interface RunningService extends Target {
  pid: number;
}

export interface CampaignOptions {
  service: RunningService;
  mode: Mode;
  cases: readonly FuzzCase[];
  check: Omit<CheckContext, 'mode'>;
  /** How long one case may go unanswered before it counts as a hang. */
  guardMs: number;
  probeEvery: number;
  /** Called after each case, for progress output. */
  onCase?: (result: CaseResult) => void;
}

export interface CaseResult {
  fuzzCase: FuzzCase;
  answers: ParsedResponse[];
  findings: Finding[];
  ms: number;
}

export interface CampaignResult {
  mode: Mode;
  results: CaseResult[];
  /** Findings not tied to one case (a crash, markup on the profiler's list page). */
  general: Array<Finding & { afterCase: number }>;
  /** Cases not sent because the service stopped answering. */
  unsent: number;
}

const MARKUP = /<vgl-(\d+)/g;

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const { service, mode, cases, guardMs } = options;
  const context: CheckContext = { ...options.check, mode };
  const results: CaseResult[] = [];
  const general: CampaignResult['general'] = [];
  let sent = 0;
  for (const fuzzCase of cases) {
    const exchanged = await exchange(service, fuzzCase.chunks, {
      answers: fuzzCase.answers,
      methods: fuzzCase.methods,
      halfClose: fuzzCase.halfClose,
      untilClose: fuzzCase.untilClose,
      guardMs,
    });
    sent++;
    const { answers, findings } = checkExchange(fuzzCase, exchanged, context);
    if (mode === 'debug') findings.push(...(await inspectReports(service, fuzzCase, answers, context, guardMs)));
    const result = { fuzzCase, answers, findings, ms: exchanged.ms };
    results.push(result);
    options.onCase?.(result);
    if (exchanged.timedOut || sent % options.probeEvery === 0 || sent === cases.length) {
      const problems = await probe(service, mode, guardMs);
      for (const problem of problems) general.push({ ...problem, afterCase: fuzzCase.id });
      if (problems.some((problem) => problem.kind === 'crashes')) break;
    }
  }
  return { mode, results, general, unsent: cases.length - sent };
}

/** One plain request on a fresh connection, for the harness's own reads. */
async function fetchRaw(
  service: Target,
  path: string,
  accept: string,
  guardMs: number,
): Promise<ParsedResponse | undefined> {
  const bytes = Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: ${accept}\r\nConnection: close\r\n\r\n`,
    'latin1',
  );
  const exchanged = await exchange(service, [bytes], { answers: 1, methods: ['GET'], guardMs });
  return parseResponses(exchanged.received, ['GET'], true).responses[0];
}

/** Is the service alive and answering; in debug mode, is its list of reports free of markup? */
async function probe(service: RunningService, mode: Mode, guardMs: number): Promise<Finding[]> {
  try {
    process.kill(service.pid, 0);
  } catch {
    return [{ kind: 'crashes', detail: `the service process ${service.pid} is gone` }];
  }
  const robots = await fetchRaw(service, '/robots.txt', '*/*', guardMs);
  if (robots?.status !== 404)
    return [
      {
        kind: 'crashes',
        detail: `GET /robots.txt was answered ${robots ? robots.status : 'nothing'} within ${guardMs} ms, not 404: the service hangs`,
      },
    ];
  if (mode !== 'debug') return [];
  const list = await fetchRaw(service, '/_profiler', 'text/html', guardMs);
  const found = new Set([...(list?.body.toString('latin1') ?? '').matchAll(MARKUP)].map((match) => match[1]));
  return [...found].map((id) => ({
    kind: 'unescaped reflections' as Kind,
    detail: `the profiler's list page shows the markup of case ${id} unescaped`,
  }));
}

/** Reads back the report of each answer: its page must not show markup raw; its JSON holds no secret and stays bounded. */
async function inspectReports(
  service: Target,
  fuzzCase: FuzzCase,
  answers: readonly ParsedResponse[],
  context: CheckContext,
  guardMs: number,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const sentMarkup = fuzzCase.chunks.some((chunk) => chunk.includes('vgl-'));
  if (!sentMarkup && !fuzzCase.inspectReport && fuzzCase.secret === undefined) return findings;
  for (const answer of answers) {
    const token = header(answer, 'x-debug-token');
    if (token === undefined || !/^[0-9a-f]{6}$/.test(token)) continue;
    // The search writes out what waits in the queue, so the report is read as stored.
    await fetchRaw(service, `/_profiler/search?token=${token}`, 'application/json', guardMs);
    if (sentMarkup) {
      const page = await fetchRaw(service, `/_profiler/${token}`, 'text/html', guardMs);
      if (page?.status !== 200)
        findings.push({
          kind: 'unbounded reports',
          detail: `the report page of ${token} could not be read back (${page?.status ?? 'no answer'})`,
        });
      const shown = /<vgl-\d+/.exec(page?.body.toString('latin1') ?? '');
      if (shown)
        findings.push({
          kind: 'unescaped reflections',
          detail: `the report page of ${token} shows ${shown[0]}> unescaped`,
        });
    }
    if (fuzzCase.inspectReport || fuzzCase.secret !== undefined) {
      const report = await fetchRaw(service, `/_profiler/${token}`, 'application/json', guardMs);
      if (report?.status !== 200) {
        findings.push({
          kind: 'unbounded reports',
          detail: `the report ${token} could not be read back (${report?.status ?? 'no answer'})`,
        });
        continue;
      }
      findings.push(...checkReport(report.body.toString('utf8'), fuzzCase.secret, context.canary));
    }
  }
  return findings;
}
