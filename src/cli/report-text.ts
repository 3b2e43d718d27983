/**
 * A stored report as plain text for the terminal (`vigil profiler:show`): the same panels as
 * the page, condensed. Each section prints the text its collector declares (the built-in ones
 * from their registry, never the ROUTES module's), under its title.
 */
import { BUILT_IN_COLLECTORS } from '../profiler/collectors/index.js';
import type { CollectorView } from '../profiler/model/collector-unit.js';
import { formatMs, formatTime } from '../profiler/model/format.js';
import { isCollectorError, type Report } from '../profiler/model/report.js';
import { titleOf } from '../profiler/pages/panels/collector-panel.js';
import { terminalSafe } from './terminal-safe.js';

/** The sections the kernel itself writes: their text needs nothing of the application. */
export const BUILT_IN_SECTIONS: ReadonlySet<string> = new Set(BUILT_IN_COLLECTORS.map((unit) => unit.name));

/** The built-in sections in the order they print: a short account first, the long listings (headers, log lines) last. */
const BUILT_IN_TEXT_ORDER = [
  ...BUILT_IN_COLLECTORS.filter((unit) => !unit.textLast),
  ...BUILT_IN_COLLECTORS.filter((unit) => unit.textLast),
];

/**
 * `collectors`: the ones the service registers besides the built-in ones (a routes
 * module's `collectors` export); a section of theirs prints their text under their panel's
 * title. Any other section prints as JSON.
 */
export function reportAsText(report: Report, collectors: readonly CollectorView[] = []): string {
  const out: string[] = [
    `Report ${report.token}`,
    `  ${report.method} ${report.url}`,
    `  status ${report.status}, ${formatTime(report.time)}, ${formatMs(report.duration)}, client ${report.ip}`,
  ];
  for (const unit of BUILT_IN_TEXT_ORDER) {
    // The kernel's sections are records: anything else in a stored report is skipped.
    const value = report.collectors[unit.name];
    if (typeof value === 'object' && value !== null) out.push(...unitText(unit, report));
  }
  const units = new Map(collectors.map((unit) => [unit.name, unit]));
  for (const [name, value] of Object.entries(report.collectors)) {
    if (BUILT_IN_SECTIONS.has(name) && !isCollectorError(value)) continue;
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
function unitText(unit: CollectorView, report: Report): string[] {
  const value = report.collectors[unit.name];
  if (value === undefined || isCollectorError(value) || !unit.text) return [];
  try {
    const lines = unit.text(value, report);
    const title = unit.textTitle?.(value, report) ?? unit.panel?.title ?? titleOf(unit.name);
    return ['', title, ...[lines].flat().map((line) => `  ${line}`)];
  } catch {
    // A broken text costs its own lines: the section prints as JSON instead.
    return [];
  }
}
