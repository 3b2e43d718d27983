/**
 * The database collector: the statements the application ran while the request was handled,
 * from the OpenTelemetry spans of its database instrumentation (`vigilSpanProcessor()`) and
 * from libraries' query TracingChannels. Each distinct text is stored once and the
 * statements point at it, so that a statement run 12 times costs its text once.
 * Creating the collector subscribes the query channels; closing it lets them go.
 */
import { holdQueryChannels } from '../activity/query-channels.js';
import { activityOf, followActivity, type SiteMemory } from '../activity/request-activity.js';
import { databaseText, type DatabaseSection, type StatementEntry } from '../activity/sections.js';
import { databaseEntries } from '../activity/toolbar-facts.js';
import { databasePanel } from './database-panel.js';
import { type CollectorRuntime, defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';

export const databaseCollector = defineCollector<DatabaseSection, CollectorSetup>({
  name: 'database',
  panel: databasePanel,
  text: databaseText,
  toolbar: ({ profile }) => databaseEntries(profile.scope),
  // Off unless PROFILER_CAPTURE_APP; `sites` is shared with the HTTP client's collector.
  create: ({ appActivity, sites }) => appActivity && databaseRuntime(appActivity.slowQueryMs, sites),
});

function databaseRuntime(slowMs: number, sites: SiteMemory): CollectorRuntime<DatabaseSection> {
  let release: (() => void) | undefined = holdQueryChannels();
  return {
    // Statements are filed only under a request that entered its scope, which a request profiled without starting does not.
    startsLate: true,
    start({ profile }) {
      followActivity(profile.scope, sites);
    },
    collect({ profile }) {
      const activity = activityOf(profile.scope);
      if (activity === undefined) return undefined;
      const recorded = activity.statements();
      if (recorded.length + activity.statementsOmitted === 0) return undefined;
      const texts: string[] = [];
      const index = new Map<string, number>();
      const statements = recorded.map((statement): StatementEntry => {
        let at = index.get(statement.text);
        if (at === undefined) index.set(statement.text, (at = texts.push(statement.text) - 1));
        // Built member by member: a rest pattern copies through V8's slow path, per statement.
        // A member added to StatementRecord must be added here.
        const entry: StatementEntry = {
          system: statement.system,
          start: statement.start,
          duration: statement.duration,
          rows: statement.rows,
          site: statement.site,
          error: statement.error,
          text: at,
        };
        if (statement.siteLookedUp === false) entry.siteLookedUp = false;
        if (statement.siteRecalled) entry.siteRecalled = true;
        return entry;
      });
      return { texts, statements, omitted: activity.statementsOmitted, slowMs };
    },
    close() {
      release?.();
      release = undefined;
    },
  };
}
