/**
 * `profiler:overview`: the overview across requests from the terminal, read from the store
 * the service writes: routes, statements, upstreams and exceptions over the last hour, day
 * or week. What a running process counted in its last flush interval is not in the store yet.
 */
import { parseArgs } from 'node:util';
import { formatMs } from '../profiler/model/format.js';
import { MINUTE_MS } from '../profiler/overview/overview-recorder.js';
import {
  OVERVIEW_WINDOWS,
  type OverviewSummary,
  type OverviewWindow,
  summarize,
} from '../profiler/overview/overview-summary.js';
import { UsageError, type Command } from './command.js';
import { withStore } from './profiler-commands.js';
import { terminalSafe } from './terminal-safe.js';

const ms = (value: number | null): string => (value === null ? 'n/a' : formatMs(value));

function overviewAsText(summary: OverviewSummary): string {
  const lines = [`Overview of the last ${summary.window}: ${summary.requests} requests`, '', 'Routes'];
  for (const row of summary.routes)
    lines.push(
      `  ${row.route}  ${row.requests} requests, ${row.clientErrors} 4xx, ${row.serverErrors} 5xx, p50 ${ms(row.p50)}, p95 ${ms(row.p95)}, p99 ${ms(row.p99)}${row.slowest ? `, slowest kept ${row.slowest.token}` : ''}`,
    );
  lines.push('', 'Statements');
  for (const row of summary.statements)
    lines.push(
      `  ${row.count} runs, ${formatMs(row.totalMs)} in all, p95 ${ms(row.p95)}, at most ${row.worstRepeat} in one request: ${row.statement}`,
    );
  lines.push('', 'Upstreams');
  for (const row of summary.upstreams)
    lines.push(`  ${row.upstream}  ${row.calls} calls, ${row.errors} errors, p95 ${ms(row.p95)}`);
  lines.push('', 'Exceptions');
  for (const row of summary.exceptions)
    lines.push(
      `  ${row.count} x ${row.className} at ${row.place}: ${row.message}${row.newestToken ? ` (newest kept ${row.newestToken})` : ''}`,
    );
  return `${lines.map((line) => terminalSafe(line)).join('\n')}\n`;
}

export const overviewCommand: Command = {
  name: 'profiler:overview',
  summary: 'routes, statements, upstreams and exceptions across requests',
  options: ['--window', '--json'],
  help: `Usage: vigil profiler:overview [--window 1h|24h|7d] [--json]

Every request counted, kept as a report or not: for each route its requests, 4xx, 5xx and
p50/p95/p99; statements by text with their runs, time and worst repeat in one request;
upstreams by method and host; exceptions by fingerprint. The window is the last hour by
default.
`,
  async run(args, config, output) {
    const { values } = parseArgs({
      args,
      options: { window: { type: 'string', default: '1h' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const window = values.window as OverviewWindow;
    if (!Object.hasOwn(OVERVIEW_WINDOWS, window))
      throw new UsageError(`--window takes 1h, 24h or 7d, not ${values.window}`);
    const from = Math.floor(Date.now() / MINUTE_MS) - OVERVIEW_WINDOWS[window] + 1;
    const counted = await withStore(config, async (store) => (store ? [await store.readOverview(from)] : []));
    const summary = summarize(window, counted);
    output.out(values.json ? `${JSON.stringify(summary, null, 2)}\n` : overviewAsText(summary));
    return 0;
  },
};
