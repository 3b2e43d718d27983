/**
 * The `Server-Timing` header of a profiled answer, which browsers' DevTools show for every
 * request: the stages so far, the database and HTTP client totals, and the total. Names and
 * descriptions are the kernel's own words and counts, never anything of the request.
 */
import type { RequestActivity } from './activity/request-activity.js';
import { stageDurations } from './collectors/performance.js';
import type { StageMarks } from './model/request-profile.js';

const STAGE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  routing: 'Routing and hooks',
  body: 'Reading the body',
  handler: 'Handler',
  rendering: 'Error page',
};

/** `name;desc="...";dur=1.234`: `desc` is quoted, from the fixed words above and numbers only. */
function metric(name: string, ms: number, desc: string): string {
  return `${name};desc="${desc}";dur=${Math.round(ms * 1000) / 1000}`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The header's value at `now` (`performance.now()`), as the answer is about to be sent. */
export function serverTiming(marks: StageMarks, now: number, activity: RequestActivity | undefined): string {
  const metrics: string[] = [];
  // Sending has not begun: the last stage reached runs until now.
  const stages = stageDurations({ ...marks, send: undefined, end: now });
  for (const stage in stages) {
    const description = STAGE_DESCRIPTIONS[stage];
    if (description !== undefined) metrics.push(metric(stage, stages[stage]!, description));
  }
  if (activity !== undefined) {
    const statements = activity.statements();
    const queries = statements.length + activity.statementsOmitted;
    if (queries > 0) {
      const ms = statements.reduce((sum, statement) => sum + (statement.duration ?? 0), 0);
      metrics.push(metric('db', ms, plural(queries, 'query', 'queries')));
    }
    const calls = activity.calls.length + activity.callsOmitted;
    if (calls > 0) {
      const ms = activity.calls.reduce((sum, call) => sum + (call.duration ?? 0), 0);
      metrics.push(metric('http', ms, plural(calls, 'HTTP call', 'HTTP calls')));
    }
  }
  metrics.push(metric('total', now - marks.start, 'Total'));
  return metrics.join(', ');
}
