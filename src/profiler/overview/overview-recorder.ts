/**
 * The overview's counts in a process: the minute under way, and the minutes ended that wait
 * for the store. Every request is counted, kept as a report or not; a store that is away
 * leaves ended minutes waiting, at most {@link WAITING_MINUTES} of them, and the older ones
 * are dropped and counted.
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

  /** The ended minutes, for the store; the minute under way ends when `now` is past it. */
  take(now: number): CountedMinute[] {
    if (this.current !== undefined && Math.floor(now / MINUTE_MS) !== this.current.minute) this.end();
    const taken = this.waiting;
    this.waiting = [];
    return taken;
  }

  /** Minutes the store could not take: they wait for the next flush, within the bound. */
  giveBack(minutes: readonly CountedMinute[]): void {
    this.waiting = [...minutes, ...this.waiting];
    this.bound();
  }

  /** The minute under way, as counted so far: the newest part of a window read in this process. */
  currentMinute(): CountedMinute | undefined {
    return this.current;
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
