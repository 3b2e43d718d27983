/**
 * The HTTP client collector: the calls the application made while the request ran, through
 * `fetch` or `node:http`/`node:https`, with no set-up (see `activity/http-client-tap.ts`).
 * Creating the collector subscribes the channels; closing it lets them go.
 */
import { holdHttpClientTap } from '../activity/http-client-tap.js';
import { activityOf, type SiteMemory, watchActivity } from '../activity/request-activity.js';
import { httpClientText, type HttpClientSection } from '../activity/sections.js';
import { httpCallEntries } from '../activity/toolbar-facts.js';
import { httpClientPanel } from './http-client-panel.js';
import { type CollectorRuntime, defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';

export const httpClientCollector = defineCollector<HttpClientSection, CollectorSetup>({
  name: 'httpClient',
  panel: httpClientPanel,
  text: httpClientText,
  toolbar: ({ profile }) => httpCallEntries(profile.scope),
  // Off unless PROFILER_CAPTURE_APP; `sites` is shared with the database collector.
  create: ({ appActivity, sites }) => appActivity && httpClientRuntime(sites),
});

function httpClientRuntime(sites: SiteMemory): CollectorRuntime<HttpClientSection> {
  let release: (() => void) | undefined = holdHttpClientTap();
  return {
    start({ profile, request }) {
      watchActivity(profile.scope, sites, request);
    },
    collect({ profile }) {
      const activity = activityOf(profile.scope);
      // No section for a request that made no call: a report without one costs nothing more.
      if (activity === undefined || activity.calls.length + activity.callsOmitted === 0) return undefined;
      // Copies: a call still running may end after its report was made.
      return { calls: activity.calls.map((call) => ({ ...call })), omitted: activity.callsOmitted };
    },
    close() {
      release?.();
      release = undefined;
    },
  };
}
