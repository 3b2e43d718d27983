/**
 * The database section: the statements the application ran while the request was handled,
 * from the OpenTelemetry spans of its database instrumentation (`vigilSpanProcessor()`) and
 * from libraries' query TracingChannels. Each distinct text is stored once and the
 * statements point at it, so that a statement run 12 times costs its text once.
 * Creating the collector subscribes the query channels; closing it lets them go.
 */
import { holdQueryChannels } from '../activity/query-channels.js';
import { activityOf, watchActivity } from '../activity/request-activity.js';
import { formatMs } from '../format.js';
import { databasePanel, describeQueries, repeatedGroups } from '../pages/panels/database-panel.js';
import type { Collector } from '../request-profile.js';

export interface StatementEntry {
  /** Index of its text in `texts`. */
  text: number;
  system: string;
  /** Milliseconds from the request's arrival. */
  start: number;
  duration: number | null;
  rows: number | null;
  site: string | null;
  error: boolean;
}

export interface DatabaseSection {
  /** Each distinct statement text once. */
  texts: string[];
  statements: StatementEntry[];
  /** Statements beyond the per-request bound. */
  omitted: number;
  /** PROFILER_SLOW_QUERY when the report was made: slower statements are flagged. */
  slowMs: number;
}

export function databaseCollector(slowMs: number): Collector {
  let release: (() => void) | undefined = holdQueryChannels();
  const collector: Collector<DatabaseSection> = {
    name: 'database',
    panel: databasePanel,
    start({ profile }) {
      watchActivity(profile.scope);
    },
    collect({ profile }) {
      const activity = activityOf(profile.scope);
      const texts: string[] = [];
      const index = new Map<string, number>();
      const statements = (activity?.statements ?? []).map(({ text, ...rest }) => {
        let at = index.get(text);
        if (at === undefined) index.set(text, (at = texts.push(text) - 1));
        return { ...rest, text: at };
      });
      return { texts, statements, omitted: activity?.statementsOmitted ?? 0, slowMs };
    },
    text(section) {
      const lines = [describeQueries(section)];
      for (const group of repeatedGroups(section)) lines.push(`  ${group.count} identical: ${section.texts[group.text]}`);
      for (const statement of section.statements) {
        lines.push(`  ${formatMs(statement.duration)}${(statement.duration ?? 0) > section.slowMs ? ' (slow)' : ''} ${section.texts[statement.text]}`);
      }
      return lines;
    },
    close() {
      release?.();
      release = undefined;
    },
  };
  return collector as Collector;
}
