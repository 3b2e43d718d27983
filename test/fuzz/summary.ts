/**
 * How a fuzz campaign reads: a table of cases and counts by family, and the findings, one
 * line each, with the case number that `--case` sends again.
 */
import type { CampaignResult } from './campaign.js';
import { KINDS, type Kind } from './checks.js';

/** Column heads for the counts, in {@link KINDS} order. */
const SHORT: Record<Kind, string> = {
  crashes: 'crash',
  'unexpected 5xx': '5xx',
  'unescaped reflections': 'refl',
  'injected headers': 'inj',
  'unparseable answers': 'parse',
  'outside the pipeline': 'pipe',
  leaks: 'leak',
  'unbounded reports': 'report',
  'contract breaks': 'rule',
};

export const LEGEND = KINDS.map((kind) => `${SHORT[kind]} = ${kind}`).join(', ');

/** Counts by kind: the number of cases with at least one finding of the kind (crashes: the number of crashes). */
export function countsOf(result: CampaignResult): Record<Kind, number> {
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (const { findings } of result.results) {
    for (const kind of new Set(findings.map((finding) => finding.kind))) counts[kind]++;
  }
  for (const kind of new Set(result.general.map((finding) => finding.kind)))
    counts[kind] += result.general.filter((finding) => finding.kind === kind).length;
  return counts;
}

export function summaryTable(result: CampaignResult): string {
  const families = new Map<string, { cases: number; slowest: number; counts: Record<Kind, number> }>();
  for (const { fuzzCase, findings, ms } of result.results) {
    let row = families.get(fuzzCase.family);
    if (!row) {
      row = {
        cases: 0,
        slowest: 0,
        counts: Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>,
      };
      families.set(fuzzCase.family, row);
    }
    row.cases++;
    row.slowest = Math.max(row.slowest, ms);
    for (const kind of new Set(findings.map((finding) => finding.kind))) row.counts[kind]++;
  }
  const total = countsOf(result);
  const head = ['family', 'cases', ...KINDS.map((kind) => SHORT[kind]), 'slowest'];
  const rows = [...families.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, row]) => [
      name,
      String(row.cases),
      ...KINDS.map((kind) => cell(row.counts[kind])),
      `${Math.round(row.slowest)} ms`,
    ]);
  const sent = result.results.length;
  rows.push(['total', String(sent), ...KINDS.map((kind) => cell(total[kind])), '']);
  const widths = head.map((_, column) => Math.max(head[column]!.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((text, column) => (column === 0 ? text.padEnd(widths[column]!) : text.padStart(widths[column]!)))
      .join('  ');
  const out = [
    line(head),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.slice(0, -1).map(line),
    widths.map((width) => '-'.repeat(width)).join('  '),
    line(rows.at(-1)!),
  ];
  if (result.unsent > 0) out.push(`${result.unsent} cases not sent: the service stopped answering`);
  return out.join('\n');
}

const cell = (count: number) => (count === 0 ? '.' : String(count));

/** One line per finding, grouped by kind, at most `limit` per kind. */
export function findingLines(result: CampaignResult, limit = Infinity): string[] {
  const lines: string[] = [];
  for (const kind of KINDS) {
    const items = [
      ...result.general
        .filter((finding) => finding.kind === kind)
        .map((finding) => `after case #${finding.afterCase}: ${finding.detail}`),
      ...result.results.flatMap(({ fuzzCase, findings }) =>
        findings
          .filter((finding) => finding.kind === kind)
          .map((finding) => `#${fuzzCase.id} ${fuzzCase.family} / ${fuzzCase.name}: ${finding.detail}`),
      ),
    ];
    if (items.length === 0) continue;
    lines.push(`${kind} (${items.length}):`);
    for (const item of items.slice(0, limit)) lines.push(`  ${item}`);
    if (items.length > limit) lines.push(`  ... and ${items.length - limit} more`);
  }
  return lines;
}
