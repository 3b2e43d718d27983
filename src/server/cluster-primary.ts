/**
 * The primary process of `WORKERS=N` (N above 1): forks N workers that share the port,
 * replaces a worker that dies, stops them all on SIGTERM/SIGINT, and passes each worker the
 * report counters of the others. It serves no request and loads neither the kernel nor the
 * store: each worker is a whole service (`main.ts`).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/index.js';
import type { WriterCounters } from '../profiler/writer/report-writer.js';
import {
  addCounters,
  countersOf,
  COUNTERS_INTERVAL_MS,
  isMessage,
  NO_COUNTERS,
  type ToPrimary,
  type ToWorker,
} from './cluster-messages.js';
import { PrimaryLog } from './primary-log.js';
import { RestartPacing } from './restart-pacing.js';

/** After SHUTDOWN_TIMEOUT, how long workers get to write their queued reports before they are killed. */
const STOP_GRACE_MS = 15_000;

interface Member {
  pid: number;
  /** When it said it listens (performance.now()); undefined while it starts. */
  listeningSince: number | undefined;
  counters: WriterCounters;
}

/**
 * The workers share the port through node:cluster (the primary accepts and hands connections
 * round-robin); one that dies is replaced after a growing wait (`restart-pacing.ts`).
 *
 * The first worker starts alone: it creates what the workers share (the development
 * certificate, the store file), so that N processes never race to create them; the others
 * start once it listens. "vigil listening on ..." is printed once every worker listens.
 */
export class ClusterPrimary {
  private readonly members = new Map<Worker, Member>();
  private readonly pacing = new RestartPacing();
  private readonly replacements = new Set<NodeJS.Timeout>();
  private readonly log: PrimaryLog;
  /** The counters of workers that are gone: their dropped and deleted reports still count. */
  private retired: WriterCounters = NO_COUNTERS;
  private serving = false;
  private stopping = false;
  private failedStop = false;
  private exitCode = 0;
  private broadcastTimer: NodeJS.Timeout | undefined;
  private lastBroadcast = -Infinity;

  constructor(
    private readonly config: Config,
    private readonly mode: string,
  ) {
    this.log = new PrimaryLog(config.logLevel);
  }

  start(): void {
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
    process.on('SIGINT', () => this.stop('SIGINT'));
    process.on('SIGTERM', () => this.stop('SIGTERM'));
    this.fork();
  }

  private fork(replacing?: number): void {
    const worker = cluster.fork();
    const member: Member = { pid: worker.process.pid ?? 0, listeningSince: undefined, counters: NO_COUNTERS };
    this.members.set(worker, member);
    worker.on('message', (message: unknown) => {
      if (isMessage<ToPrimary>(message)) this.received(worker, member, message);
    });
    // A failed send to a worker that is exiting: its exit is handled where it is reported.
    worker.on('error', () => undefined);
    if (replacing !== undefined)
      this.log.info(`Started worker ${member.pid} in place of worker ${replacing}`, { worker: member.pid });
  }

  private received(worker: Worker, member: Member, message: ToPrimary): void {
    switch (message.vigil) {
      case 'listening':
        return this.listening(worker, member, String(message.url));
      case 'counters':
        member.counters = countersOf(message);
        return this.broadcastSoon();
    }
  }

  private listening(worker: Worker, member: Member, url: string): void {
    member.listeningSince = performance.now();
    // A stop sent while it was starting may have come before it listened for messages.
    if (this.stopping) return void send(worker, { vigil: 'stop', signal: 'SIGTERM' });
    // A new worker learns the others' counters at once.
    this.broadcastSoon();
    if (this.serving) {
      this.log.info(`Worker ${member.pid} is serving (${this.listeningCount()} of ${this.config.workers} workers)`, {
        worker: member.pid,
      });
      return;
    }
    // The first worker has created what they share: the others may start.
    if (this.members.size === 1) for (let i = 1; i < this.config.workers; i++) this.fork();
    if (this.listeningCount() < this.config.workers) return;
    this.serving = true;
    process.stdout.write(`vigil listening on ${url} (${this.config.workers} workers; ${this.mode})\n`);
  }

  private listeningCount(): number {
    let count = 0;
    for (const member of this.members.values()) if (member.listeningSince !== undefined) count++;
    return count;
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    const member = this.members.get(worker);
    if (!member) return;
    this.members.delete(worker);
    const clean = code === 0 && signal === null;
    // A worker killed with reports in its queue lost them: they count as dropped.
    this.retired = addCounters(this.retired, {
      queued: 0,
      dropped: member.counters.dropped + (clean ? 0 : member.counters.queued),
      purged: member.counters.purged,
    });
    this.broadcastSoon();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.stopping) {
      // One that was still starting had nothing to lose.
      if (!clean && member.listeningSince !== undefined) this.failedStop = true;
      this.log[clean ? 'info' : 'error'](`Worker ${member.pid} stopped (${how})`, { worker: member.pid, code, signal });
      return this.finishWhenEmpty();
    }
    if (!this.serving) return this.startFailed(member, code, how);
    const servedMs = member.listeningSince === undefined ? undefined : performance.now() - member.listeningSince;
    const delayMs = this.pacing.exited(servedMs);
    const when = member.listeningSince === undefined ? ' before it listened' : '';
    this.log.error(`Worker ${member.pid} exited (${how})${when}; starting a replacement in ${delayMs} ms`, {
      worker: member.pid,
      code,
      signal,
      delayMs,
    });
    const timer = setTimeout(() => {
      this.replacements.delete(timer);
      this.fork(member.pid);
    }, delayMs);
    this.replacements.add(timer);
  }

  /**
   * A worker died before every worker listened: the service cannot start. A worker that
   * could not start said why ("vigil: cannot start: ...", exit code 1); the others are stopped.
   */
  private startFailed(member: Member, code: number | null, how: string): void {
    if (code !== 1)
      process.stderr.write(`vigil: cannot start: worker ${member.pid} exited (${how}) before every worker listened\n`);
    this.stopping = true;
    this.exitCode = 1;
    for (const [worker, other] of this.members) {
      if (other.listeningSince === undefined) worker.process.kill('SIGKILL');
      else send(worker, { vigil: 'stop', signal: 'SIGTERM' });
    }
    this.finishWhenEmpty();
  }

  /** First signal: every worker drains (SHUTDOWN_TIMEOUT) and writes its queue. Second: they cut at once. */
  private stop(signal: string): void {
    if (this.stopping) {
      this.log.warn(`${signal} again: the workers close their connections at once`);
      for (const worker of this.members.keys()) send(worker, { vigil: 'cut', signal });
      return;
    }
    this.stopping = true;
    for (const timer of this.replacements) clearTimeout(timer);
    this.replacements.clear();
    const count = this.members.size;
    this.log.info(
      `${signal}: stopping ${count} worker${count === 1 ? '' : 's'} (requests in flight get SHUTDOWN_TIMEOUT, ${this.config.shutdownTimeoutMs / 1000}s, then queued reports are written)`,
    );
    for (const worker of this.members.keys()) send(worker, { vigil: 'stop', signal });
    // A worker that cannot stop (an event loop held by a handler) does not hold the primary for ever.
    setTimeout(() => this.killRemaining(), this.config.shutdownTimeoutMs + STOP_GRACE_MS).unref();
    this.finishWhenEmpty();
  }

  private killRemaining(): void {
    for (const [worker, member] of this.members) {
      this.log.error(
        `Worker ${member.pid} did not stop within SHUTDOWN_TIMEOUT and ${STOP_GRACE_MS / 1000}s more: killed; its queued reports are lost`,
        { worker: member.pid },
      );
      this.failedStop = true;
      worker.process.kill('SIGKILL');
    }
  }

  private finishWhenEmpty(): void {
    if (this.members.size > 0 || this.replacements.size > 0) return;
    process.exit(this.exitCode || (this.failedStop ? 1 : 0));
  }

  /** Sends each worker the counters of all the others, at most every COUNTERS_INTERVAL_MS. */
  private broadcastSoon(): void {
    if (this.broadcastTimer) return;
    const wait = Math.max(0, this.lastBroadcast + COUNTERS_INTERVAL_MS - performance.now());
    this.broadcastTimer = setTimeout(() => {
      this.broadcastTimer = undefined;
      this.lastBroadcast = performance.now();
      const total = [...this.members.values()].reduce((sum, member) => addCounters(sum, member.counters), this.retired);
      for (const [worker, member] of this.members) {
        const others = {
          queued: total.queued - member.counters.queued,
          dropped: total.dropped - member.counters.dropped,
          purged: total.purged - member.counters.purged,
        };
        send(worker, { vigil: 'peers', ...others });
      }
    }, wait);
    this.broadcastTimer.unref();
  }
}

/** A worker that is exiting cannot take messages: what it misses no longer concerns it. */
function send(worker: Worker, message: ToWorker): void {
  if (worker.isConnected()) worker.send(message, undefined, undefined, () => undefined);
}

export function runPrimary(config: Config, mode: string): void {
  new ClusterPrimary(config, mode).start();
}
