/**
 * The HTTP client collector: the calls the application made while the request ran, through
 * `fetch` or `node:http`/`node:https`, with no set-up (see `activity/http-client-tap.ts`).
 * Creating the collector subscribes the channels; closing it lets them go.
 */
import { holdHttpClientTap } from '../activity/http-client-tap.js';
import { activityOf, followActivity, type SiteMemory } from '../activity/request-activity.js';
import { headerRecord, type CallExchange } from '../activity/call-exchange.js';
import type { OutgoingCall } from '../activity/request-activity.js';
import { httpClientText, type CallEntry, type HttpClientSection } from '../activity/sections.js';
import { cutMarker } from '../model/report-bounds.js';
import type { Redactor } from '../redaction/redact.js';
import { responsePreview } from './response-preview.js';
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
    // Calls are filed only under a request that entered its scope, which a request profiled without starting does not.
    startsLate: true,
    start({ profile }) {
      followActivity(profile.scope, sites);
    },
    collect({ profile, redactor }) {
      const activity = activityOf(profile.scope);
      // No section for a request that made no call: a report without one costs nothing more.
      if (activity === undefined || activity.calls.length + activity.callsOmitted === 0) return undefined;
      // Copies: a call still running may end after its report was made.
      const detailed = detailedCalls(activity.calls);
      const calls = activity.calls.map((call) => callEntry(call, detailed.has(call) ? redactor : undefined));
      const section: HttpClientSection = { calls, omitted: activity.callsOmitted };
      const detailsOmitted = activity.calls.filter((call) => call.exchange !== undefined).length - detailed.size;
      if (detailsOmitted > 0) section.detailsOmitted = detailsOmitted;
      return section;
    },
    close() {
      release?.();
      release = undefined;
    },
  };
}

/**
 * Calls whose headers and body start a report keeps: a few bodies of BODY_HEAD_BYTES already
 * take much of the bound of a report's sections (MAX_SECTIONS_BYTES), past which every
 * string of the largest section is cut short. Those that failed or were answered with an
 * error come first, then the others in order.
 */
const DETAILED_CALLS = 8;

function detailedCalls(calls: readonly OutgoingCall[]): Set<OutgoingCall> {
  const seen = calls.filter((call) => call.exchange !== undefined);
  if (seen.length <= DETAILED_CALLS) return new Set(seen);
  const failed = (call: OutgoingCall) => call.error !== null || (call.status ?? 0) >= 400;
  const chosen = seen.filter(failed).slice(0, DETAILED_CALLS);
  for (const call of seen) {
    if (chosen.length >= DETAILED_CALLS) break;
    if (!failed(call)) chosen.push(call);
  }
  return new Set(chosen);
}

/**
 * A call as its report keeps it: headers redacted by name, the body's start as the response
 * preview reads one; without a redactor, neither (a call past {@link DETAILED_CALLS}).
 */
function callEntry({ exchange, ...call }: OutgoingCall, redactor: Redactor | undefined): CallEntry {
  if (exchange === undefined || redactor === undefined) return call;
  const entry: CallEntry = call;
  const sent = exchange.requestHeaders;
  const received = exchange.responseHeaders;
  if (sent !== undefined) entry.requestHeaders = redactor.headers(headerRecord(sent));
  if (received === undefined) return entry;
  const headers = headerRecord(received);
  entry.responseHeaders = redactor.headers(headers);
  const body = bodyPreview(exchange, headers, redactor);
  if (body !== undefined) entry.responseBody = body;
  return entry;
}

function bodyPreview(
  exchange: CallExchange,
  headers: Record<string, string | string[]>,
  redactor: Redactor,
): CallEntry['responseBody'] {
  const { received, complete, headBytes } = exchange;
  if (received === 0) return complete ? { kind: 'empty', size: 0 } : undefined;
  const preview = responsePreview(Buffer.concat(exchange.head), headers, redactor);
  const size = complete ? received : null;
  if (preview.kind !== 'text') return { kind: preview.kind, size };
  if (received === headBytes) return { kind: 'text', text: preview.text, size: received };
  // Cut inside a character: its first bytes decode as U+FFFD.
  const text = preview.text.replace(/\uFFFD$/, '');
  return { kind: 'text', text: text + cutMarker(received - headBytes, 'bytes'), size: received };
}
