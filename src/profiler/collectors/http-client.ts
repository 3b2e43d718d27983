/**
 * The HTTP client section: the calls the application made while the request ran, through
 * `fetch` or `node:http`/`node:https`, with no set-up (see `activity/http-client-tap.ts`).
 * Creating the collector subscribes the channels; closing it lets them go.
 */
import { holdHttpClientTap } from '../activity/http-client-tap.js';
import { activityOf, type SiteMemory, watchActivity } from '../activity/request-activity.js';
import { httpClientText, type HttpClientSection } from '../activity/sections.js';
import { httpClientPanel } from './http-client-panel.js';
import type { Collector } from '../model/request-profile.js';

/** `sites`: the instance's memory of call sites, shared with the database collector. */
export function httpClientCollector(sites: SiteMemory): Collector {
  let release: (() => void) | undefined = holdHttpClientTap();
  const collector: Collector<HttpClientSection> = {
    name: 'httpClient',
    panel: httpClientPanel,
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
    text: httpClientText,
    close() {
      release?.();
      release = undefined;
    },
  };
  return collector as Collector;
}
