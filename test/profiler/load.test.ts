/** Issue 3: under a bounded loopback load, the number of stored reports equals the number of requests sent, up to retention. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openStore, sendMany, storedCount } from '../support/load.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, startService, type Service } from '../support/service.js';
import { storedTokens } from '../support/stores.js';

const running: Service[] = [];
after(async () => {
  await Promise.all(running.map((service) => service.stop()));
});
/** The service, in this process unless the test stops it by a signal. */
async function service(env: Record<string, string>, start: typeof startService = startInProcess) {
  const started = await start(env);
  running.push(started);
  return started;
}

describe('every request answered has its stored report', () => {
  it('stores 3000 reports for 3000 requests at concurrency 16, each under its own token', async (t) => {
    const target = await service({});
    const sent = await sendMany(target, { count: 3000, concurrency: 16, path: (i) => `/load/${i}?n=${i}` });
    assert.ok(sent.statuses.every((status) => status === 404));
    // An answer without a token is a report the writer dropped: its queue was full, the disk
    // not keeping up. Told apart from a token handed out twice.
    const tokenless = sent.tokens.filter((token) => token === 'undefined').length;
    assert.equal(tokenless, 0, `${tokenless} answers carry no token: their reports were dropped`);
    assert.equal(new Set(sent.tokens).size, 3000, 'no token was handed out twice');
    const store = await openStore(target);
    try {
      assert.equal(await storedCount(store, 3000), 3000);
      assert.deepEqual(await storedTokens(store), [...sent.tokens].sort());
    } finally {
      await store.close();
    }
    t.diagnostic('3000 requests sent, 3000 reports stored');
  });
});

describe('retention caps the store at PROFILER_MAX_REPORTS, keeping the newest', () => {
  it('keeps exactly 500 of 2000 reports, none of the oldest', async (t) => {
    const target = await service({ PROFILER_MAX_REPORTS: '500' });
    const sent = await sendMany(target, { count: 2000, concurrency: 16, path: (i) => `/retained/${i}` });
    // The store holds 500 from the 500th report on, so its count cannot tell that the writer
    // is done: the search writes what is queued first.
    assert.equal(
      (await ask(target, { path: '/_profiler/search', headers: { accept: 'application/json' } })).status,
      200,
    );
    const store = await openStore(target);
    try {
      assert.equal(await storedCount(store, 500), 500);
      const stored = new Set(await storedTokens(store));
      assert.equal(stored.size, 500);
      assert.ok([...stored].every((token) => sent.tokens.includes(token)));
      // Requests go out in order, at most 16 at once: the first 1000 are all older than the
      // newest 500. Told apart by path: the answers' order is not the requests'.
      const kept = (await store.search({ limit: 1000 })).reports.map((summary) =>
        Number(/\/retained\/(\d+)$/.exec(summary.url)?.[1]),
      );
      assert.equal(kept.length, 500);
      assert.ok(
        kept.every((i) => i >= 1000),
        `kept requests: ${kept.sort((a, b) => a - b).join(', ')}`,
      );
    } finally {
      await store.close();
    }
    t.diagnostic('2000 requests sent, 500 reports kept');
  });
});

describe('stopping the service writes the reports still queued', () => {
  it('loses none of 1000 reports when SIGTERM follows the last answer', async (t) => {
    const target = await service({ LOG_LEVEL: 'info' }, startService);
    const sent = await sendMany(target, { count: 1000, concurrency: 16, path: (i) => `/stopping/${i}` });
    await target.stop();
    assert.match(target.output(), /"msg":"Debug reports: 1000 written, 0 dropped"/);
    const store = await openStore(target);
    try {
      assert.deepEqual(await storedTokens(store), [...sent.tokens].sort());
    } finally {
      await store.close();
    }
    t.diagnostic('1000 requests sent, 1000 reports stored after SIGTERM');
  });
});
