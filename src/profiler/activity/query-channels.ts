/**
 * Database statements from libraries that publish a `TracingChannel` for their queries, with
 * no OpenTelemetry at all: mysql2 (3.20 and later) publishes `mysql2:query` and
 * `mysql2:execute`. The statement's text is read from the channel's context (`query`, `sql`
 * or `text`), never its values, and its literals are replaced; the statement is filed under
 * the request whose code started it, its callbacks put back in that request
 * (`callback-channels.ts`). Subscribed while a debug instance holds the tap, as the HTTP
 * client's channels are.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { bindCallbackChannels, releaseCallbackChannels } from './callback-channels.js';
import {
  callSite,
  currentActivity,
  round,
  type FoundSite,
  type RequestActivity,
  type StatementRecord,
} from './request-activity.js';
import { keptStatementText } from './statement-text.js';
import { SharedInstall } from '../../utils/shared-install.js';

/** Tracing channels known to carry one statement each, and the database they speak to. */
export const QUERY_CHANNELS: ReadonlyArray<{ name: string; system: string }> = [
  { name: 'mysql2:query', system: 'mysql' },
  { name: 'mysql2:execute', system: 'mysql' },
];

interface Open {
  activity: RequestActivity;
  started: number;
  site: FoundSite;
  failed: boolean;
}

type Context = Record<string, unknown>;

/** The statement, its literals replaced (`statement-text.ts`): mysql2's `query()` reports it with its values in. */
function statementText(context: Context, system: string): string | undefined {
  for (const field of ['query', 'sql', 'text']) {
    const value = context[field];
    if (typeof value === 'string') return keptStatementText(value, system);
    if (typeof value === 'object' && value !== null && typeof (value as { sql?: unknown }).sql === 'string')
      return keptStatementText((value as { sql: string }).sql, system);
  }
  return undefined;
}

function rowCount(result: unknown): number | null {
  if (Array.isArray(result)) return Array.isArray(result[0]) ? result[0].length : result.length;
  const count =
    (result as { rowCount?: unknown; affectedRows?: unknown } | null)?.rowCount ??
    (result as { affectedRows?: unknown } | null)?.affectedRows;
  return typeof count === 'number' ? count : null;
}

function handlersFor(system: string) {
  const open = new WeakMap<object, Open>();
  const finish = (context: Context) => {
    const entry = open.get(context);
    const text = statementText(context, system);
    if (entry === undefined || text === undefined) return;
    open.delete(context);
    const duration = round(performance.now() - entry.started);
    const statement: StatementRecord = {
      text,
      system,
      start: entry.activity.since(entry.started),
      duration,
      rows: entry.failed ? null : rowCount(context.result),
      site: entry.site.site,
      error: entry.failed,
    };
    if (entry.site.recalled) statement.siteRecalled = true;
    entry.activity.addStatement(statement);
  };
  return {
    start(context: Context) {
      const activity = currentActivity();
      if (activity)
        open.set(context, {
          activity,
          started: performance.now(),
          site: activity.siteFor('database', statementText(context, system) ?? system, callSite),
          failed: false,
        });
    },
    error(context: Context) {
      const entry = open.get(context);
      if (entry) entry.failed = true;
    },
    // A promise or a callback ends at asyncEnd; a synchronous call at end, with its result already there.
    end(context: Context) {
      if ('result' in context || 'error' in context) finish(context);
    },
    asyncStart() {},
    asyncEnd: finish,
  };
}

const subscriptions = QUERY_CHANNELS.map(({ name, system }) => ({
  channel: diagnosticsChannel.tracingChannel(name),
  handlers: handlersFor(system),
}));

const queryChannels = new SharedInstall(
  () => {
    for (const { channel, handlers } of subscriptions) channel.subscribe(handlers as never);
    bindCallbackChannels();
  },
  () => {
    for (const { channel, handlers } of subscriptions) channel.unsubscribe(handlers as never);
    releaseCallbackChannels();
  },
);

/** Subscribes the query channels for one more holder; the returned function lets go (once). */
export function holdQueryChannels(): () => void {
  return queryChannels.hold();
}
