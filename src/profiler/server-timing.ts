/**
 * The `Server-Timing` header of a profiled answer, which browsers' DevTools show for every
 * request: the stages so far, the database and HTTP client totals, and the total. Names and
 * descriptions are the kernel's own words and counts, never anything of the request. Made
 * for every answer in debug mode, so it is built in one pass from constant parts.
 */
import type { RequestActivity } from './activity/request-activity.js';
import type { StageMarks } from './model/request-profile.js';

/** The marks that begin a stage, in the order a request reaches them, each with its metric up to `dur=`. */
const STAGES: ReadonlyArray<readonly [keyof StageMarks, string]> = [
  ['start', 'routing;desc="Routing and hooks";dur='],
  ['parsing', 'body;desc="Reading the body";dur='],
  ['handler', 'handler;desc="Handler";dur='],
  ['error', 'rendering;desc="Error page";dur='],
];

function ms(duration: number): number {
  return Math.round(duration * 1000) / 1000;
}

/**
 * The header's value at `now` (`performance.now()`), as the answer is about to be sent:
 * the stage the request is in runs until now (the performance panel's stages, but sending).
 */
export function serverTiming(marks: StageMarks, now: number, activity: RequestActivity | undefined): string {
  let value = '';
  let stage = STAGES[0]![1];
  let from = marks.start;
  for (let i = 1; i < STAGES.length; i++) {
    const [mark, metric] = STAGES[i]!;
    const at = marks[mark];
    if (at === undefined) continue;
    value += `${stage}${ms(at - from)}, `;
    stage = metric;
    from = at;
  }
  value += `${stage}${ms(now - from)}, `;
  if (activity !== undefined) value += activityMetrics(activity);
  return `${value}total;desc="Total";dur=${ms(now - marks.start)}`;
}

/** `db` and `http`, each when the request made any, with the count in `desc`. */
function activityMetrics(activity: RequestActivity): string {
  let value = '';
  const statements = activity.statements();
  const queries = statements.length + activity.statementsOmitted;
  if (queries > 0) {
    let total = 0;
    for (const statement of statements) total += statement.duration ?? 0;
    value += `db;desc="${queries} ${queries === 1 ? 'query' : 'queries'}";dur=${ms(total)}, `;
  }
  const calls = activity.calls.length + activity.callsOmitted;
  if (calls > 0) {
    let total = 0;
    for (const call of activity.calls) total += call.duration ?? 0;
    value += `http;desc="${calls} HTTP ${calls === 1 ? 'call' : 'calls'}";dur=${ms(total)}, `;
  }
  return value;
}
