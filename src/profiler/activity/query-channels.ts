/**
 * Database statements from libraries that publish a `TracingChannel` for their queries, with
 * no OpenTelemetry at all: mysql2 (3.20 and later) publishes `mysql2:query` and
 * `mysql2:execute`, ioredis (5.11 and later) `ioredis:command`, node-redis (5.12 and later)
 * `node-redis:command`. A SQL statement's text is read from the channel's context (`query`,
 * `sql` or `text`), never its values, and its literals are replaced; a Redis command is its
 * name and a `?` per argument (`redis-command-text.ts`); the statement is filed under
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
import { ioredisCommandText, nodeRedisCommandText } from './redis-command-text.js';
import { keptStatementText } from './statement-text.js';
import { SharedInstall } from '../../utils/shared-install.js';

type Context = Record<string, unknown>;

interface QueryChannel {
  name: string;
  /** The database it speaks to, as OpenTelemetry names it. */
  system: string;
  /** The statement as kept, read from the channel's context; undefined when it has none. */
  text(context: Context): string | undefined;
  /** The rows of a statement's result, when the library's answer says. */
  rows(result: unknown): number | null;
}

const mysqlText = (context: Context) => sqlText(context, 'mysql');
const noRows = () => null;

/** Tracing channels known to carry one statement each. */
const QUERY_CHANNELS: readonly QueryChannel[] = [
  { name: 'mysql2:query', system: 'mysql', text: mysqlText, rows: rowCount },
  { name: 'mysql2:execute', system: 'mysql', text: mysqlText, rows: rowCount },
  { name: 'ioredis:command', system: 'redis', text: ioredisCommandText, rows: noRows },
  { name: 'node-redis:command', system: 'redis', text: nodeRedisCommandText, rows: noRows },
];

interface Open {
  activity: RequestActivity;
  started: number;
  site: FoundSite;
  failed: boolean;
}

/** The statement, its literals replaced (`statement-text.ts`): mysql2's `query()` reports it with its values in. */
function sqlText(context: Context, system: string): string | undefined {
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

function handlersFor({ system, text: statementText, rows: rowsOf }: QueryChannel) {
  const open = new WeakMap<object, Open>();
  const finish = (context: Context) => {
    const entry = open.get(context);
    const text = statementText(context);
    if (entry === undefined || text === undefined) return;
    open.delete(context);
    const duration = round(performance.now() - entry.started);
    const statement: StatementRecord = {
      text,
      system,
      start: entry.activity.since(entry.started),
      duration,
      rows: entry.failed ? null : rowsOf(context.result),
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
          site: activity.siteFor('database', statementText(context) ?? system, callSite),
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

const subscriptions = QUERY_CHANNELS.map((channel) => ({
  channel: diagnosticsChannel.tracingChannel(channel.name),
  handlers: handlersFor(channel),
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
