/**
 * A finished request as the overview counts it, read from what the profiler followed: its
 * route's pattern, the statements and calls its activity recorded, and its exception's
 * fingerprint from the exception section. The same for a request kept as a report and one
 * that is not, so that both are counted under the same keys.
 */
import type { CollectorContext } from './model/request-profile.js';
import { fingerprintOfSection } from './model/report-facts.js';
import type { OverviewSample } from './overview/minute-counts.js';
import { activityOf } from './activity/request-activity.js';

/** `host:port` of a call's URL, as its upstream; the URL's start when it cannot be read. */
function hostOf(url: string): string {
  try {
    return new URL(url).host || url.slice(0, 200);
  } catch {
    return url.slice(0, 200);
  }
}

const NONE: readonly never[] = Object.freeze([]);

interface SampleFacts {
  status: number;
  durationMs: number;
  /** The token of the report kept of it, or null. */
  token: string | null;
  /** The exception section of the request, when it failed. */
  exception: unknown;
}

export function sampleOfRequest({ request, profile }: CollectorContext, facts: SampleFacts): OverviewSample {
  const activity = activityOf(profile.scope);
  const fingerprint = facts.exception === undefined ? undefined : fingerprintOfSection(facts.exception);
  return {
    time: profile.time,
    method: request.method,
    // Noted by the handler. A request refused before it reads `is404` (a costly load) and
    // `routeOptions`, which Fastify builds anew at each read.
    route: profile.routePattern ?? (request.is404 ? null : (request.routeOptions.url ?? null)),
    status: facts.status,
    durationMs: facts.durationMs,
    token: facts.token,
    // Most requests make no statement and no call.
    statements:
      activity === undefined
        ? NONE
        : activity.statements().map((statement) => ({
            system: statement.system,
            text: statement.text,
            durationMs: statement.duration ?? 0,
          })),
    calls:
      activity === undefined
        ? NONE
        : activity.calls.map((call) => ({
            method: call.method,
            host: hostOf(call.url),
            durationMs: call.duration,
            failed: call.error !== null || (call.status !== null && call.status >= 500),
          })),
    exception:
      fingerprint === undefined
        ? null
        : {
            fingerprint: fingerprint.key,
            className: fingerprint.class,
            place: fingerprint.site,
            message: fingerprint.message,
          },
  };
}
