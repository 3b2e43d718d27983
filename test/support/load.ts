/** Many requests over a few kept-alive HTTPS connections, from this process, on loopback only. */
import { Agent, request } from 'node:https';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import type { Service } from './service.js';
import { openStoreOf } from './stores.js';

export interface Sent {
  /** x-debug-token of each answer, in the order the answers came. */
  tokens: string[];
  statuses: number[];
}

export async function sendMany(
  service: Service,
  { count, concurrency, path }: { count: number; concurrency: number; path: (i: number) => string },
): Promise<Sent> {
  if (!new URL(service.url).hostname.match(/^(localhost|127\.0\.0\.1|\[::1\])$/))
    throw new Error('load tests run against loopback only');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: service.ca });
  const sent: Sent = { tokens: [], statuses: [] };
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${service.url}${path(i)}`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          sent.tokens.push(String(res.headers['x-debug-token']));
          sent.statuses.push(res.statusCode ?? 0);
          resolve();
        });
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`request ${i} timed out`)));
      req.on('error', reject);
      req.end();
    });
  const worker = async () => {
    while (next < count) await one(next++);
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return sent;
}

/** The service's report store, opened beside it (SQLite in WAL mode lets both read and write). */
export function openStore(service: Service): Promise<ReportStore> {
  return openStoreOf(service.varDir);
}

/** Waits until the store holds `expected` reports (the writer works in batches after the answers). */
export async function storedCount(store: ReportStore, expected: number, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let count = await store.count();
  while (count !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    count = await store.count();
  }
  return count;
}
