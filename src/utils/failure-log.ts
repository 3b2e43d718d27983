/**
 * Log lines for failures that repeat, such as a full disk under the report store: one per
 * interval per kind of failure, with counts, and a line when the operation works again.
 * {@link ThrottledFailures} is pure logic on a clock the caller passes; {@link PacedFailureLog}
 * runs it on the real clock.
 */

interface KindState {
  /** When the kind's last line was written. */
  loggedAt: number;
  /** Failures since that line, not yet in any line. */
  unlogged: number;
  detail: string;
  /** Failures since the last success (0: the operation works). */
  streak: number;
  streakStart: number;
  /** The operation succeeded after failing, and no line has said so yet. */
  recovered: { at: number; failures: number; since: number } | undefined;
}

/** A line to write: `failures` is how many failures it counts (0: it only says the operation succeeds again). */
export interface FailureLine {
  message: string;
  failures: number;
}

const times = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The lines due for each kind of failure, on the caller's clock.
 *
 * @example
 *   const failures = new ThrottledFailures(1000);
 *   failures.record('report store write failed', 'SQLITE_FULL: database or disk is full', now)?.message;
 *   // -> 'report store write failed: SQLITE_FULL: database or disk is full', then undefined
 *   //    for the rest of the second; due() then gives
 *   // 'report store write failed 37 times in the last 1.0 s: SQLITE_FULL: database or disk is full'
 */
export class ThrottledFailures {
  private readonly kinds = new Map<string, KindState>();

  constructor(private readonly intervalMs = 1000) {}

  /** Counts one failure of `kind`; returns the line to write now, or undefined while the kind's interval lasts. */
  record(kind: string, detail: string, now: number): FailureLine | undefined {
    let state = this.kinds.get(kind);
    if (state === undefined) {
      state = { loggedAt: -Infinity, unlogged: 0, detail, streak: 0, streakStart: now, recovered: undefined };
      this.kinds.set(kind, state);
    }
    if (state.streak === 0) state.streakStart = now;
    state.streak++;
    state.detail = detail;
    // A success that a new failure follows within the interval is news no more.
    state.recovered = undefined;
    if (now - state.loggedAt < this.intervalMs) {
      state.unlogged++;
      return undefined;
    }
    const failures = state.unlogged + 1;
    const message =
      failures === 1
        ? `${kind}: ${detail}`
        : `${kind} ${times(failures, 'time')} in the last ${seconds(now - state.loggedAt)}: ${detail}`;
    this.written(state, now);
    return { message, failures };
  }

  /** The operation of `kind` worked: returns a line saying so when it had failed, unless it must wait for the interval. */
  succeeded(kind: string, now: number): FailureLine | undefined {
    const state = this.kinds.get(kind);
    if (state === undefined || state.streak === 0) return undefined;
    state.recovered = { at: now, failures: state.streak, since: state.streakStart };
    state.streak = 0;
    if (now - state.loggedAt < this.intervalMs) return undefined;
    const line = this.lineOf(kind, state, now);
    this.written(state, now);
    return line;
  }

  /** Lines for the kinds whose interval is over with failures or a recovery not yet written. */
  due(now: number): FailureLine[] {
    const lines: FailureLine[] = [];
    for (const [kind, state] of this.kinds) {
      if (!this.waiting(state) || now - state.loggedAt < this.intervalMs) continue;
      lines.push(this.lineOf(kind, state, now));
      this.written(state, now);
    }
    return lines;
  }

  /** When the next line is due, or undefined when nothing waits. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const state of this.kinds.values()) {
      if (this.waiting(state)) next = Math.min(next ?? Infinity, state.loggedAt + this.intervalMs);
    }
    return next;
  }

  /** Every line still waiting, at once (on close). */
  drain(now: number): FailureLine[] {
    const lines: FailureLine[] = [];
    for (const [kind, state] of this.kinds) {
      if (!this.waiting(state)) continue;
      lines.push(this.lineOf(kind, state, now));
      this.written(state, now);
    }
    return lines;
  }

  private waiting(state: KindState): boolean {
    return state.unlogged > 0 || state.recovered !== undefined;
  }

  private lineOf(kind: string, state: KindState, now: number): FailureLine {
    const { recovered, unlogged: failures } = state;
    const again =
      recovered &&
      `it succeeds again (${times(recovered.failures, 'failure')} in ${seconds(recovered.at - recovered.since)})`;
    if (failures === 0) return { message: `${kind}: ${again}`, failures };
    const counted = `${kind} ${times(failures, 'time')} in the last ${seconds(now - state.loggedAt)}: ${state.detail}`;
    return { message: again ? `${counted}; ${again}` : counted, failures };
  }

  private written(state: KindState, now: number): void {
    state.loggedAt = now;
    state.unlogged = 0;
    state.recovered = undefined;
  }
}

/** Where paced lines go: counted failures as errors, recoveries as warnings. */
interface FailureLogOutput {
  error(fields: { failures: number }, message: string): void;
  warn(message: string): void;
}

/** {@link ThrottledFailures} on the real clock: each line is written when it falls due, by a timer of its own. */
export class PacedFailureLog {
  private readonly failures: ThrottledFailures;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: FailureLogOutput,
    intervalMs = 1000,
  ) {
    this.failures = new ThrottledFailures(intervalMs);
  }

  failed(kind: string, detail: string): void {
    this.write(this.failures.record(kind, detail, Date.now()));
    this.schedule();
  }

  succeeded(kind: string): void {
    this.write(this.failures.succeeded(kind, Date.now()));
    this.schedule();
  }

  /** Writes every line still waiting (on close). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const line of this.failures.drain(Date.now())) this.write(line);
  }

  private schedule(): void {
    const due = this.failures.nextDue();
    if (due === undefined || this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        for (const line of this.failures.due(Date.now())) this.write(line);
        this.schedule();
      },
      Math.max(0, due - Date.now()),
    ).unref();
  }

  private write(line: FailureLine | undefined): void {
    if (!line) return;
    if (line.failures > 0) this.output.error({ failures: line.failures }, line.message);
    else this.output.warn(line.message);
  }
}
