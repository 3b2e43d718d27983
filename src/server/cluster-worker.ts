/**
 * A worker's side of `WORKERS=N` (`cluster-primary.ts` is the other): tells the primary
 * when the service listens, stops or cuts when the primary says so, sends its report
 * counters when they change (once per turn of the event loop) and keeps the others' totals for the
 * profiler's pages.
 */
import type { WriterCounters } from '../profiler/writer/report-writer.js';
import {
  countersOf,
  COUNTERS_INTERVAL_MS,
  isMessage,
  NO_COUNTERS,
  sameCounters,
  type ToPrimary,
  type ToWorker,
} from './cluster-messages.js';

type SignalHandler = (signal: string) => void;

export class PrimaryLink {
  private peers: WriterCounters = NO_COUNTERS;
  private stopHandler: SignalHandler | undefined;
  private cutHandler: SignalHandler | undefined;
  /** A stop or cut that came while the service was starting, applied once it is up. */
  private early: { stop?: string; cut?: string } = {};

  constructor() {
    process.on('message', (message: unknown) => {
      if (isMessage<ToWorker>(message)) this.received(message);
    });
  }

  /** The counters of every other worker, summed, as the primary last sent them. */
  readonly peerCounters = (): WriterCounters => this.peers;

  announce(url: string): void {
    send({ vigil: 'listening', url });
  }

  onStop(handler: SignalHandler): void {
    this.stopHandler = handler;
    if (this.early.stop !== undefined) handler(this.early.stop);
  }

  onCut(handler: SignalHandler): void {
    this.cutHandler = handler;
    if (this.early.cut !== undefined) handler(this.early.cut);
  }

  /**
   * Sends `read()` to the primary once per turn of the event loop in which `subscribe`'s
   * listener was called, so that a worker killed at any moment has its queue counted as it
   * was; and every COUNTERS_INTERVAL_MS when it changed, for changes nothing announced.
   */
  shareCounters(read: () => WriterCounters, subscribe: (listener: () => void) => void): void {
    let sent = NO_COUNTERS;
    let scheduled = false;
    const sendChanged = () => {
      scheduled = false;
      const now = read();
      if (sameCounters(now, sent)) return;
      sent = now;
      send({ vigil: 'counters', ...now });
    };
    subscribe(() => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(sendChanged);
    });
    setInterval(sendChanged, COUNTERS_INTERVAL_MS).unref();
  }

  private received(message: ToWorker): void {
    switch (message.vigil) {
      case 'peers':
        this.peers = countersOf(message);
        return;
      case 'stop':
        if (this.stopHandler) return this.stopHandler(String(message.signal));
        this.early.stop = String(message.signal);
        return;
      case 'cut':
        if (this.cutHandler) return this.cutHandler(String(message.signal));
        this.early.cut = String(message.signal);
        return;
    }
  }
}

/** The channel closes when the primary is gone; the worker then exits, and nothing is left to tell. */
function send(message: ToPrimary): void {
  if (process.connected) process.send!(message, undefined, undefined, () => undefined);
}
