/** The toolbar's view of what a request's code did so far: its database queries and HTTP calls, count and time. */
import type { RequestScope } from '../../http/request-scope.js';
import { formatMs } from '../model/format.js';
import { REPEATED_WARNING } from './sections.js';
import { activityOf } from './request-activity.js';

export function activityFacts(scope: RequestScope): Array<{ label: string; value: string; marked?: boolean }> {
  const activity = activityOf(scope);
  if (activity === undefined) return [];
  const facts: Array<{ label: string; value: string; marked?: boolean }> = [];
  const statements = activity.statements();
  const queries = statements.length + activity.statementsOmitted;
  if (queries > 0) {
    const counts = new Map<string, number>();
    let repeated = false;
    for (const statement of statements) {
      const count = (counts.get(statement.text) ?? 0) + 1;
      counts.set(statement.text, count);
      if (count >= REPEATED_WARNING) repeated = true;
    }
    const total = statements.reduce((sum, statement) => sum + (statement.duration ?? 0), 0);
    const value = `${queries} ${queries === 1 ? 'query' : 'queries'} in ${formatMs(total)}${repeated ? ' (repeated)' : ''}`;
    facts.push({
      label: repeated ? `Database queries: a statement ran ${REPEATED_WARNING} times or more` : 'Database queries',
      value,
      marked: repeated,
    });
  }
  const calls = activity.calls.length + activity.callsOmitted;
  if (calls > 0) {
    const total = activity.calls.reduce((sum, call) => sum + (call.duration ?? 0), 0);
    facts.push({ label: 'HTTP calls', value: `${calls} call${calls === 1 ? '' : 's'} in ${formatMs(total)}` });
  }
  return facts;
}
