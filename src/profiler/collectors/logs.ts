/**
 * The logs collector: the lines written while the request was handled, each with the logger
 * that wrote it: the request's logger, the app logger (`app.log`) or `console.<method>`.
 * Pino lines below LOG_LEVEL are never written, so never kept; the others are parsed back
 * into level, time and message.
 */
import type { TappedLine } from '../activity/log-tap.js';
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';
import { logsPanel, logsText, type LogLine, type LogsSection } from './logs-panel.js';

export type { LogLine, LogsSection } from './logs-panel.js';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** Fields every line carries, shown in their own columns or not at all. */
const OWN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId']);

function parseLogLine(line: string): LogLine {
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    const context: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry)) if (!OWN_FIELDS.has(key)) context[key] = value;
    return {
      level: LEVELS[entry.level as number] ?? String(entry.level ?? 'unknown'),
      time: typeof entry.time === 'number' ? entry.time : null,
      message: typeof entry.msg === 'string' ? entry.msg : '',
      context,
    };
  } catch {
    return { level: 'unknown', time: null, message: line.trimEnd(), context: {} };
  }
}

/** A kept line as the report shows it: the logger first, then what the line says. */
function logLineOf(line: TappedLine): LogLine {
  if (line.level !== undefined)
    return { logger: line.logger, level: line.level, time: line.time ?? null, message: line.text, context: {} };
  return { logger: line.logger, ...parseLogLine(line.text) };
}

export const logsCollector = defineCollector<LogsSection, CollectorSetup>({
  name: 'logs',
  panel: logsPanel,
  textTitle: (section) => `Logs (${section.lines.length + section.omitted})`,
  text: logsText,
  textLast: true,
  // Without a tap (the application's own logger), reports have no logs section.
  create: ({ logTap: tap, production }) => {
    if (!tap) return undefined;
    // Production: lines are kept from a request's first one (see LogTap.keepEveryRequest),
    // so `start` may wait until the report is kept.
    if (production) tap.keepEveryRequest(true);
    return {
      startsLate: production === true,
      toolbar: ({ request }) => {
        const lines = tap.count(request.id);
        const value = `${lines} log${lines === 1 ? '' : 's'}`;
        return [{ label: 'Log lines', value, detail: [['Lines while the page was made', String(lines)]] }];
      },
      start({ request, profile, redactor }) {
        profile.scope.lines = tap.watch(request.id, (value) => redactor.fields(value));
      },
      discard({ request }) {
        tap.forget(request.id);
      },
      collect({ request, redactor }): LogsSection {
        const { lines, omitted } = tap.take(request.id);
        // A handler may log what it received (`log.info({ body })`): credential fields are redacted.
        return { lines: lines.map((line) => redactor.fields(logLineOf(line))), omitted };
      },
      close() {
        tap.keepEveryRequest(false);
      },
    };
  },
});
