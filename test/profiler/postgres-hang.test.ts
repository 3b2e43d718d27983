/**
 * Issues 27 (item 1) and 32 (item 4): the token source and a PostgreSQL that hangs or comes
 * back. A server frozen by SIGSTOP (its sockets open, nothing answering) never holds a
 * request for seconds: a request waits a short bound for a lease, then goes without a token,
 * counted. A server stopped and started again has the tokens back before the next request
 * asks: that request has a token that opens its report.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendMany } from '../support/load.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { ask, startService, type Service } from '../support/service.js';

const JSON_ACCEPT = { accept: 'application/json' };
const TOKEN = /^[0-9a-f]{6}$/;
/** A request held this long waited on the hung server: a margin far above a request's time, far below the driver's timeouts. */
const HELD_MS = 1000;

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.close());

interface Timed {
  statuses: number[];
  tokens: string[];
  /** Each request's time from sending to the end of its answer, in ms. */
  ms: number[];
}

/** Requests sent for `durationMs` (longer while `more` says so, up to 10 s) over `concurrency` kept-alive connections, each timed. */
async function timedRequests(
  service: Service,
  {
    durationMs,
    concurrency,
    path,
    more = () => false,
  }: { durationMs: number; concurrency: number; path: (i: number) => string; more?: (timed: Timed) => boolean },
): Promise<Timed> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: service.ca });
  const timed: Timed = { statuses: [], tokens: [], ms: [] };
  const start = performance.now();
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const sent = performance.now();
      const req = request(`${service.url}${path(i)}`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          timed.ms.push(performance.now() - sent);
          timed.statuses.push(res.statusCode ?? 0);
          timed.tokens.push(String(res.headers['x-debug-token']));
          resolve();
        });
      });
      req.setTimeout(15_000, () => req.destroy(new Error(`request ${i} timed out`)));
      req.on('error', reject);
      req.end();
    });
  const worker = async () => {
    for (;;) {
      const elapsed = performance.now() - start;
      if (elapsed >= 10_000 || (elapsed >= durationMs && !more(timed))) return;
      await one(next++);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return timed;
}

/** The profiler's home page once nothing waits to be written: its counts of stored and dropped reports. */
async function settledCounts(service: Service): Promise<{ stored: number; dropped: number }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await ask(service, { path: '/_profiler' });
    const count = (label: string) => Number(new RegExp(`<b>(\\d+)</b> ${label}`).exec(page.body)?.[1]);
    if (page.status === 200 && count('waiting to be written') === 0)
      return { stored: count('stored'), dropped: count('dropped since start') };
    if (Date.now() > deadline)
      assert.fail(`the queue was not written within 20 s: ${page.status}\n${page.body.slice(0, 500)}`);
    await sleep(200);
  }
}

/** Waits (at most `ms`) until the service's log matches `pattern`; true when it did. */
async function logged(service: Service, pattern: RegExp, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (pattern.test(service.output())) return true;
    await sleep(50);
  }
  return pattern.test(service.output());
}

describe('a PostgreSQL that hangs holds no request: a request waits a short bound for a lease, then goes without a token, counted', () => {
  it('answers every request within a second while the server is frozen, gives tokens again once it thaws, and counts each request without one as dropped', async (t) => {
    const dsn = await server.database('hang');
    const service = await startService({ PROFILER_DSN: dsn });
    let paused = false;
    try {
      const warm = await sendMany(service, { count: 200, concurrency: 8, path: (i) => `/before/${i}` });
      assert.ok(warm.tokens.every((token) => TOKEN.test(token)));

      server.pause();
      paused = true;
      // Long enough to use up the block at hand, whose next lease the frozen server never answers.
      const noToken = (timed: Timed) => timed.tokens.some((token) => !TOKEN.test(token));
      const frozen = await timedRequests(service, {
        durationMs: 2500,
        concurrency: 8,
        path: (i) => `/frozen/${i}`,
        more: (timed) => !noToken(timed),
      });
      server.resume();
      paused = false;

      const slowest = Math.max(...frozen.ms);
      const without = frozen.tokens.filter((token) => !TOKEN.test(token)).length;
      t.diagnostic(
        `while frozen: ${frozen.ms.length} answered, ${without} without a token, slowest ${Math.round(slowest)} ms`,
      );
      assert.ok(without > 0, 'the block at hand ran out while the server was frozen');
      assert.deepEqual([...new Set(frozen.statuses)], [404]);
      assert.ok(slowest < HELD_MS, `a request waited ${Math.round(slowest)} ms on the frozen server`);

      let back: string | undefined;
      for (let round = 0; round < 50 && back === undefined; round++) {
        const sent = await sendMany(service, { count: 10, concurrency: 2, path: (i) => `/thawed/${round}-${i}` });
        back = sent.tokens.find((token) => TOKEN.test(token));
        if (back === undefined) await sleep(200);
      }
      assert.ok(back, 'tokens came back within 10 s of the server thawing');
      const opened = await ask(service, { path: `/_profiler/${back}`, headers: JSON_ACCEPT });
      assert.equal(opened.status, 200);
      assert.match(service.output(), /token lease .*(did not answer|no answer)/);

      const counts = await settledCounts(service);
      assert.ok(counts.dropped >= without, `dropped ${counts.dropped}, answered without a token ${without}`);
    } finally {
      if (paused) server.resume();
      await service.stop();
    }
  });
});

describe('PostgreSQL stopped and started: the tokens come back before a request asks for them', () => {
  it('gives the first request after the server is back a token that opens its report', async (t) => {
    const dsn = await server.database('restart');
    const service = await startService({ PROFILER_DSN: dsn });
    let down = false;
    try {
      await sendMany(service, { count: 100, concurrency: 4, path: (i) => `/before/${i}` });
      await server.stop();
      down = true;
      // Uses up the block at hand: the leases fail while the server is down.
      const during = await sendMany(service, { count: 600, concurrency: 8, path: (i) => `/down/${i}` });
      assert.ok(
        during.tokens.some((token) => !TOKEN.test(token)),
        'the block ran out while the server was down',
      );
      await sleep(1500);
      await server.start();
      down = false;

      // No request is sent until the first one below: the service must lease by itself.
      const recovered = await logged(service, /token lease failed[^\n]*it succeeds again/, 8000);
      t.diagnostic(`the log said the lease recovered: ${recovered}`);
      await sleep(200);
      const first = await ask(service, { path: '/first-after-restart' });
      const token = String(first.headers['x-debug-token']);
      assert.match(token, TOKEN, 'the first request after the server is back has a token');
      const opened = await ask(service, { path: `/_profiler/${token}`, headers: JSON_ACCEPT });
      assert.equal(opened.status, 200, opened.body.slice(0, 300));
      assert.match(opened.body, /first-after-restart/);
    } finally {
      if (down) await server.start();
      await service.stop();
    }
  });
});
