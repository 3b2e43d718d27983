/** A stored report as plain text for the terminal (`vigil profiler:show`): the same panels as the page, condensed. */
import {
  databaseText,
  httpClientText,
  type DatabaseSection,
  type HttpClientSection,
} from '../profiler/activity/sections.js';
import type { ExceptionSection } from '../profiler/collectors/exception.js';
import type { LogsSection } from '../profiler/collectors/logs.js';
import { memoryCollector } from '../profiler/collectors/memory.js';
import { performanceView } from '../profiler/collectors/performance.js';
import type { RequestSection } from '../profiler/collectors/request.js';
import type { ResponseSection } from '../profiler/collectors/response.js';
import type { RoutingSection } from '../profiler/collectors/routing.js';
import { formatMs, formatTime } from '../profiler/model/format.js';
import { titleOf } from '../profiler/pages/panels/collector-panel.js';
import { databasePanel } from '../profiler/collectors/database-panel.js';
import { httpClientPanel } from '../profiler/collectors/http-client-panel.js';
import type { Report } from '../profiler/model/report.js';
import type { Collector } from '../profiler/model/request-profile.js';
import { terminalSafe } from './terminal-safe.js';

/** The sections the kernel itself writes: their text needs nothing of the application. */
export const BUILT_IN_SECTIONS: ReadonlySet<string> = new Set([
  'request',
  'response',
  'exception',
  'routing',
  'performance',
  'memory',
  'logs',
  'database',
  'httpClient',
]);

function headerLines(headers: Record<string, string | string[]> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) => [value].flat().map((line) => `  ${name}: ${line}`));
}

function section<T>(report: Report, name: string): T | undefined {
  const value = report.collectors[name];
  return typeof value === 'object' && value !== null && !('collectorError' in value) ? (value as T) : undefined;
}

/** Sections of collectors that are units (their text comes with them), in the order they print. */
const BUILT_IN_UNITS: ReadonlyArray<Pick<Collector, 'name' | 'panel' | 'text'>> = [
  performanceView,
  memoryCollector,
  // The application's activity, without its collectors: creating them subscribes channels.
  { name: 'database', panel: databasePanel, text: (section) => databaseText(section as DatabaseSection) },
  { name: 'httpClient', panel: httpClientPanel, text: (section) => httpClientText(section as HttpClientSection) },
];

/**
 * `collectors`: the ones the service registers besides the built-in ones (a routes
 * module's `collectors` export); a section of theirs prints their text under their panel's
 * title. Any other section prints as JSON.
 */
export function reportAsText(report: Report, collectors: readonly Collector[] = []): string {
  const out: string[] = [
    `Report ${report.token}`,
    `  ${report.method} ${report.url}`,
    `  status ${report.status}, ${formatTime(report.time)}, ${formatMs(report.duration)}, client ${report.ip}`,
  ];
  const units = new Map([...collectors, ...BUILT_IN_UNITS].map((unit) => [unit.name, unit]));
  const exception = section<ExceptionSection>(report, 'exception');
  if (exception) {
    out.push(
      '',
      'Exception',
      `  ${exception.class} (${exception.code}, status ${exception.status}): ${exception.message}`,
    );
    if (exception.file) out.push(`  raised at ${exception.file}:${exception.line}`);
    const own = exception.trace.filter((frame) => frame.own);
    if (own.length > 0)
      out.push('  project frames:', ...own.map((frame) => `    ${frame.function} ${frame.file}:${frame.line}`));
  }
  const routing = section<RoutingSection>(report, 'routing');
  if (routing) {
    out.push('', 'Routing');
    if (routing.matched) {
      out.push(`  route ${routing.matched.name ?? ''} ${routing.matched.path} (${routing.matched.methods.join(', ')})`);
      for (const [name, value] of Object.entries(routing.params ?? {})) out.push(`  param ${name} = ${value}`);
    } else {
      out.push(
        `  no route matched ${routing.path}; allowed methods: ${routing.allowedMethods?.length ? routing.allowedMethods.join(', ') : 'none'}`,
      );
      if (routing.redirectedTo) out.push(`  redirected to ${routing.redirectedTo}`);
      if (routing.routeTableChanged)
        out.push(
          `  the routes changed since this request (route table ${routing.routeTable ?? 'unknown'}): explained against the routes as they are now`,
        );
      for (const miss of routing.closest ?? [])
        out.push(`  closest: ${miss.methods.join('|')} ${miss.path}: ${miss.reason}`);
    }
  }
  for (const unit of BUILT_IN_UNITS) out.push(...unitText(unit, report));
  const request = section<RequestSection>(report, 'request');
  if (request)
    out.push(
      '',
      `Request (${request.protocol}${request.tls ? `, ${request.tls.version}` : ''})`,
      ...headerLines(request.headers),
    );
  const response = section<ResponseSection>(report, 'response');
  if (response)
    out.push(
      '',
      `Response (${response.status}${response.aborted ? ', client left before it was written' : ''})`,
      ...headerLines(response.headers),
    );
  const logs = section<LogsSection>(report, 'logs');
  if (logs) {
    out.push('', `Logs (${logs.lines.length + logs.omitted})`);
    for (const line of logs.lines)
      out.push(`  ${line.level.padEnd(5)} ${line.time === null ? '' : formatTime(line.time)} ${line.message}`);
  }
  for (const [name, value] of Object.entries(report.collectors)) {
    if (BUILT_IN_SECTIONS.has(name) && !isFailed(value)) continue;
    const unit = units.get(name);
    const lines = unit && !BUILT_IN_SECTIONS.has(name) ? unitText(unit, report) : [];
    out.push(
      ...(lines.length > 0
        ? lines
        : [
            '',
            name,
            ...JSON.stringify(value, null, 2)
              .split('\n')
              .map((line) => `  ${line}`),
          ]),
    );
  }
  // Each line on its own: a line break inside a stored value is shown, never obeyed.
  return `${out.map(terminalSafe).join('\n')}\n`;
}

/** A unit's section under its title, its lines indented; none when the report lacks the section or the unit has no text. */
function unitText(unit: Pick<Collector, 'name' | 'panel' | 'text'>, report: Report): string[] {
  const value = report.collectors[unit.name];
  if (value === undefined || isFailed(value) || !unit.text) return [];
  let lines: string | readonly string[];
  try {
    lines = unit.text(value, report);
  } catch {
    // A broken text costs its own lines: the section prints as JSON instead.
    return [];
  }
  return ['', unit.panel?.title ?? titleOf(unit.name), ...[lines].flat().map((line) => `  ${line}`)];
}

function isFailed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'collectorError' in value;
}
