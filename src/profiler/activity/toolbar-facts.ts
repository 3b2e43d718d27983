/** The toolbar's view of what a request's code did so far: its database queries and HTTP calls, count and time. */
import type { RequestScope } from '../../http/request-scope.js';
import { formatMs } from '../model/format.js';
import type { ToolbarEntry } from '../model/panel.js';
import { activityOf } from './request-activity.js';
import { REPEATED_WARNING } from './sections.js';

/** `3 queries in 12 ms`, marked when a statement ran {@link REPEATED_WARNING} times or more; none without queries. */
export function databaseEntries(scope: RequestScope): ToolbarEntry[] {
  const activity = activityOf(scope);
  if (activity === undefined) return [];
  const statements = activity.statements();
  const queries = statements.length + activity.statementsOmitted;
  if (queries === 0) return [];
  const counts = new Map<string, number>();
  let mostRun: [string, number] = ['', 0];
  for (const statement of statements) {
    const count = (counts.get(statement.text) ?? 0) + 1;
    counts.set(statement.text, count);
    if (count > mostRun[1]) mostRun = [statement.text, count];
  }
  const repeated = mostRun[1] >= REPEATED_WARNING;
  const total = statements.reduce((sum, statement) => sum + (statement.duration ?? 0), 0);
  const value = `${queries} ${queries === 1 ? 'query' : 'queries'} in ${formatMs(total)}${repeated ? ' (repeated)' : ''}`;
  const detail: Array<readonly [string, string]> = [
    ['Statements', String(queries)],
    ['Different statements', String(counts.size)],
    ['Time in the database', formatMs(total)],
  ];
  if (mostRun[1] > 1) detail.push([`Ran ${mostRun[1]} times`, clipped(mostRun[0])]);
  if (!repeated) return [{ label: 'Database queries', value, detail }];
  return [
    { label: `Database queries: a statement ran ${REPEATED_WARNING} times or more`, value, tone: 'warn', detail },
  ];
}

/** `2 calls in 35 ms`; none without calls. */
export function httpCallEntries(scope: RequestScope): ToolbarEntry[] {
  const activity = activityOf(scope);
  const calls = activity === undefined ? 0 : activity.calls.length + activity.callsOmitted;
  if (activity === undefined || calls === 0) return [];
  const total = activity.calls.reduce((sum, call) => sum + (call.duration ?? 0), 0);
  const detail: Array<readonly [string, string]> = activity.calls
    .slice(0, DETAIL_CALLS)
    .map((call) => [
      `${call.method} ${clipped(withoutSecrets(call.url))}`,
      `${call.error === null ? (call.status ?? 'pending') : 'failed'} in ${formatMs(call.duration)}`,
    ]);
  if (calls > detail.length) detail.push(['More calls', String(calls - detail.length)]);
  return [{ label: 'HTTP calls', value: `${calls} call${calls === 1 ? '' : 's'} in ${formatMs(total)}`, detail }];
}

/** The calls a panel of the toolbar lists; the report lists them all. */
const DETAIL_CALLS = 5;
/** A statement or URL in a panel of the toolbar is cut here; the report shows it whole. */
const DETAIL_TEXT_MAX = 120;

/** The URL without its query and credentials, where secrets are: the report redacts them, the page would not. */
function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return url.split('?')[0]!;
  }
}

function clipped(text: string): string {
  return text.length <= DETAIL_TEXT_MAX ? text : `${text.slice(0, DETAIL_TEXT_MAX)}…`;
}
