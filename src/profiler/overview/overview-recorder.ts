/**
 * The overview's counts in a process since its last flush: the minute under way, and the
 * minutes that wait for the store. Every request is counted, kept as a report or not. A flush
 * takes the minute under way too, and counting goes on in a fresh one: the store adds up a
 * process's parts of one minute, so a crash loses one flush interval at most. A store that is
 * away leaves minutes waiting, at most {@link WAITING_MINUTES} of them, and the older ones are
 * dropped and counted.
 */
import { countSample, emptyMinute, type MinuteCounts, type OverviewSample } from './minute-counts.js';

export const MINUTE_MS = 60_000;
/** Ended minutes held for a store that is away: an hour. */
const WAITING_MINUTES = 60;

export interface CountedMinute {
  /** Minutes since the epoch. */
  minute: number;
  counts: MinuteCounts;
}

export class OverviewRecorder {
  private current: CountedMinute | undefined;
  private waiting: CountedMinute[] = [];
  /** Ended minutes dropped, unwritten, since the recorder started. */
  droppedMinutes = 0;

  record(sample: OverviewSample): void {
    const minute = Math.floor(sample.time / MINUTE_MS);
    if (this.current === undefined || this.current.minute !== minute) {
      this.end();
      this.current = { minute, counts: emptyMinute() };
    }
    countSample(this.current.counts, sample);
  }

  /** Everything counted since the last flush, for the store, the minute under way included. */
  take(): CountedMinute[] {
    this.end();
    const taken = this.waiting;
    this.waiting = [];
    return taken;
  }

  /** Minutes the store could not take: they wait for the next flush, within the bound. */
  giveBack(minutes: readonly CountedMinute[]): void {
    this.waiting = [...minutes, ...this.waiting];
    this.bound();
  }

  /** What this process counted and the store does not hold yet: the newest part of a window read here. */
  unwritten(): CountedMinute[] {
    return this.current === undefined ? [...this.waiting] : [...this.waiting, this.current];
  }

  private end(): void {
    if (this.current === undefined) return;
    this.waiting.push(this.current);
    this.current = undefined;
    this.bound();
  }

  private bound(): void {
    const over = this.waiting.length - WAITING_MINUTES;
    if (over > 0) {
      this.waiting.splice(0, over);
      this.droppedMinutes += over;
    }
  }
}
