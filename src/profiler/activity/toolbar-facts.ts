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
  let repeated = false;
  for (const statement of statements) {
    const count = (counts.get(statement.text) ?? 0) + 1;
    counts.set(statement.text, count);
    if (count >= REPEATED_WARNING) repeated = true;
  }
  const total = statements.reduce((sum, statement) => sum + (statement.duration ?? 0), 0);
  const value = `${queries} ${queries === 1 ? 'query' : 'queries'} in ${formatMs(total)}${repeated ? ' (repeated)' : ''}`;
  if (!repeated) return [{ label: 'Database queries', value }];
  return [{ label: `Database queries: a statement ran ${REPEATED_WARNING} times or more`, value, tone: 'warn' }];
}

/** `2 calls in 35 ms`; none without calls. */
export function httpCallEntries(scope: RequestScope): ToolbarEntry[] {
  const activity = activityOf(scope);
  const calls = activity === undefined ? 0 : activity.calls.length + activity.callsOmitted;
  if (activity === undefined || calls === 0) return [];
  const total = activity.calls.reduce((sum, call) => sum + (call.duration ?? 0), 0);
  return [{ label: 'HTTP calls', value: `${calls} call${calls === 1 ? '' : 's'} in ${formatMs(total)}` }];
}
