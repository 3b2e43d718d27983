/**
 * What the primary and its workers say to each other over the cluster's IPC channel (WORKERS
 * above 1): a worker announces that it listens and shares its report counters; the primary
 * stops or cuts the workers and sends each the counters of the others.
 */
import type { WriterCounters } from '../profiler/writer/report-writer.js';

export type ToPrimary = { vigil: 'listening'; url: string } | ({ vigil: 'counters' } & WriterCounters);

export type ToWorker =
  | { vigil: 'stop'; signal: string }
  | { vigil: 'cut'; signal: string }
  | ({ vigil: 'peers' } & WriterCounters);

export const NO_COUNTERS: WriterCounters = Object.freeze({ queued: 0, dropped: 0, purged: 0 });

/** How often, at most, a worker sends its counters and the primary sends the totals. */
export const COUNTERS_INTERVAL_MS = 250;

/** One of ours: the cluster's own messages and anything else on the channel are ignored. */
export function isMessage<T extends { vigil: string }>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { vigil?: unknown }).vigil === 'string';
}

/** Counters from the channel, each a whole number (0 where it is not). */
export function countersOf(message: Partial<Record<keyof WriterCounters, unknown>>): WriterCounters {
  const whole = (value: unknown) => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0);
  return { queued: whole(message.queued), dropped: whole(message.dropped), purged: whole(message.purged) };
}

export function addCounters(a: WriterCounters, b: WriterCounters): WriterCounters {
  return { queued: a.queued + b.queued, dropped: a.dropped + b.dropped, purged: a.purged + b.purged };
}

export function sameCounters(a: WriterCounters, b: WriterCounters): boolean {
  return a.queued === b.queued && a.dropped === b.dropped && a.purged === b.purged;
}
