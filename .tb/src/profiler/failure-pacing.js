const times = (count, noun) => `${count} ${noun}${count === 1 ? "" : "s"}`;
const seconds = (ms) => `${(ms / 1e3).toFixed(1)} s`;
class ThrottledFailures {
  constructor(intervalMs = 1e3) {
    this.intervalMs = intervalMs;
  }
  intervalMs;
  kinds = /* @__PURE__ */ new Map();
  /** Counts one failure of `kind`; returns the line to write now, or undefined while the kind's interval lasts. */
  record(kind, detail, now) {
    let state = this.kinds.get(kind);
    if (state === void 0) {
      state = { loggedAt: -Infinity, unlogged: 0, detail, streak: 0, streakStart: now, recovered: void 0 };
      this.kinds.set(kind, state);
    }
    if (state.streak === 0) state.streakStart = now;
    state.streak++;
    state.detail = detail;
    state.recovered = void 0;
    if (now - state.loggedAt < this.intervalMs) {
      state.unlogged++;
      return void 0;
    }
    const failures = state.unlogged + 1;
    const message = failures === 1 ? `${kind}: ${detail}` : `${kind} ${times(failures, "time")} in the last ${seconds(now - state.loggedAt)}: ${detail}`;
    this.written(state, now);
    return { message, failures };
  }
  /** The operation of `kind` worked: returns a line saying so when it had failed, unless it must wait for the interval. */
  succeeded(kind, now) {
    const state = this.kinds.get(kind);
    if (state === void 0 || state.streak === 0) return void 0;
    state.recovered = { at: now, failures: state.streak, since: state.streakStart };
    state.streak = 0;
    if (now - state.loggedAt < this.intervalMs) return void 0;
    const line = this.lineOf(kind, state, now);
    this.written(state, now);
    return line;
  }
  /** Lines for the kinds whose interval is over with failures or a recovery not yet written. */
  due(now) {
    const lines = [];
    for (const [kind, state] of this.kinds) {
      if (!this.waiting(state) || now - state.loggedAt < this.intervalMs) continue;
      lines.push(this.lineOf(kind, state, now));
      this.written(state, now);
    }
    return lines;
  }
  /** When the next line is due, or undefined when nothing waits. */
  nextDue() {
    let next;
    for (const state of this.kinds.values()) {
      if (this.waiting(state)) next = Math.min(next ?? Infinity, state.loggedAt + this.intervalMs);
    }
    return next;
  }
  /** Every line still waiting, at once (on close). */
  drain(now) {
    const lines = [];
    for (const [kind, state] of this.kinds) {
      if (!this.waiting(state)) continue;
      lines.push(this.lineOf(kind, state, now));
      this.written(state, now);
    }
    return lines;
  }
  waiting(state) {
    return state.unlogged > 0 || state.recovered !== void 0;
  }
  lineOf(kind, state, now) {
    const { recovered, unlogged: failures } = state;
    const again = recovered && `it succeeds again (${times(recovered.failures, "failure")} in ${seconds(recovered.at - recovered.since)})`;
    if (failures === 0) return { message: `${kind}: ${again}`, failures };
    const counted = `${kind} ${times(failures, "time")} in the last ${seconds(now - state.loggedAt)}: ${state.detail}`;
    return { message: again ? `${counted}; ${again}` : counted, failures };
  }
  written(state, now) {
    state.loggedAt = now;
    state.unlogged = 0;
    state.recovered = void 0;
  }
}
class Backoff {
  constructor(firstMs, maxMs) {
    this.firstMs = firstMs;
    this.maxMs = maxMs;
  }
  firstMs;
  maxMs;
  failures = 0;
  retryAt = -Infinity;
  ready(now) {
    return now >= this.retryAt;
  }
  /** Records a failure at `now`; returns how long to wait before the next attempt. */
  failed(now) {
    const delay = Math.min(this.firstMs * 2 ** Math.min(this.failures, 30), this.maxMs);
    this.failures++;
    this.retryAt = now + delay;
    return delay;
  }
  succeeded() {
    this.failures = 0;
    this.retryAt = -Infinity;
  }
}
class PacedFailureLog {
  constructor(output, intervalMs = 1e3) {
    this.output = output;
    this.failures = new ThrottledFailures(intervalMs);
  }
  output;
  failures;
  timer;
  failed(kind, detail) {
    this.write(this.failures.record(kind, detail, Date.now()));
    this.schedule();
  }
  succeeded(kind) {
    this.write(this.failures.succeeded(kind, Date.now()));
    this.schedule();
  }
  /** Writes every line still waiting (on close). */
  flush() {
    clearTimeout(this.timer);
    this.timer = void 0;
    for (const line of this.failures.drain(Date.now())) this.write(line);
  }
  schedule() {
    const due = this.failures.nextDue();
    if (due === void 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = void 0;
      for (const line of this.failures.due(Date.now())) this.write(line);
      this.schedule();
    }, Math.max(0, due - Date.now())).unref();
  }
  write(line) {
    if (!line) return;
    if (line.failures > 0) this.output.error({ failures: line.failures }, line.message);
    else this.output.warn(line.message);
  }
}
export {
  Backoff,
  PacedFailureLog,
  ThrottledFailures
};
//# sourceMappingURL=failure-pacing.js.map
