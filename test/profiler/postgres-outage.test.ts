/**
 * Issue 12, outages of the shared store, with the real service on a real PostgreSQL: the
 * server stopped under load, or down at start. Every request is answered; reports wait in
 * the queue and are written once the server is back, the others are dropped and counted;
 * the profiler's pages answer 503 meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendMany, type Sent } from '../support/load.js';
import { PG_PASSWORD, startPostgres, type PostgresServer } from '../support/postgres.js';
import { ask, startService, type Service } from '../support/service.js';

const JSON_ACCEPT = { accept: 'application/json' };

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.close());

/** The profiler's home page once nothing waits to be written: its counts of stored, waiting and dropped reports. */
async function settledCounts(service: Service): Promise<{ stored: number; waiting: number; dropped: number }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await ask(service, { path: '/_profiler' });
    const count = (label: string) => Number(new RegExp(`<b>(\\d+)</b> ${label}`).exec(page.body)?.[1]);
    if (page.status === 200) {
      const counts = {
        stored: count('stored'),
        waiting: count('waiting to be written'),
        dropped: count('dropped since start'),
      };
      if (counts.waiting === 0) return counts;
    }
    if (Date.now() > deadline)
      assert.fail(`the queue was not written within 20 s: ${page.status}\n${page.body.slice(0, 500)}`);
    await sleep(200);
  }
}

/** Requests until one is answered with a token (the service leases again after a delay once the server is back). */
async function tokenOnceBack(service: Service, path: string): Promise<{ token: string; sent: Sent[] }> {
  const rounds: Sent[] = [];
  for (let round = 0; round < 50; round++) {
    const sent = await sendMany(service, { count: 20, concurrency: 4, path: (i) => `${path}/${round}-${i}` });
    rounds.push(sent);
    const token = sent.tokens.findLast((candidate) => /^[0-9a-f]{6}$/.test(candidate));
    if (token) return { token, sent: rounds };
    await sleep(200);
  }
  assert.fail('no request had a token 10 s after the server was back');
}

const answered = (all: Sent[]) => all.reduce((sum, sent) => sum + sent.statuses.length, 0);
/** Every answer is the route's own: a 404 for these unrouted paths, never a 5xx. */
const assertAll404 = (all: Sent[]) => {
  const statuses = all.flatMap((sent) => sent.statuses);
  const byStatus = new Map<number, number>();
  for (const status of statuses) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  assert.deepEqual([...byStatus.keys()], [404], `statuses: ${JSON.stringify([...byStatus])}`);
};

describe('PostgreSQL stopped under load: every request is answered, and once it is back new reports are stored', () => {
  it('answers every request while the server stops and stays down, answers the profiler 503, writes the queue once it is back, and answered minus stored is the dropped count', async (t) => {
    const dsn = await server.database('load');
    const service = await startService({ PROFILER_DSN: dsn, PROFILER_MAX_REPORTS: '100000' });
    let down = false;
    try {
      const all: Sent[] = [await sendMany(service, { count: 500, concurrency: 8, path: (i) => `/before/${i}` })];

      // The server is stopped (fast shutdown: sessions cut, transactions rolled back) while 3000 requests are under way.
      const loading = sendMany(service, { count: 3000, concurrency: 8, path: (i) => `/during/${i}` });
      await sleep(300);
      await server.stop();
      down = true;
      all.push(await loading);
      all.push(await sendMany(service, { count: 300, concurrency: 8, path: (i) => `/down/${i}` }));

      for (const path of ['/_profiler', '/_profiler/search?url=during', `/_profiler/${all[0]!.tokens[0]}`]) {
        const page = await ask(service, { path, headers: JSON_ACCEPT });
        assert.equal(page.status, 503, `${path}: ${page.body.slice(0, 300)}`);
        assert.equal(page.headers['retry-after'], '5');
        const problem = JSON.parse(page.body) as { title: string; detail: string };
        assert.equal(problem.title, 'Service Unavailable');
        assert.match(
          problem.detail,
          /^Report store unavailable: postgres:\/\/vigil@127\.0\.0\.1:\d+\/load_\w+: .+\. New reports wait in the write queue and are written once it answers again\.$/,
        );
        for (const secret of [PG_PASSWORD, encodeURIComponent(PG_PASSWORD)])
          assert.ok(!page.body.includes(secret), 'the password is not shown');
      }
      const html = await ask(service, { path: '/_profiler' });
      assert.equal(html.status, 503);
      assert.match(html.body, /VIGIL_ERR_REPORT_STORE_UNAVAILABLE/);

      await server.start();
      down = false;
      const back = await tokenOnceBack(service, '/back');
      all.push(...back.sent);
      assertAll404(all);

      const counts = await settledCounts(service);
      const stored = (await server.query<{ n: number }>(dsn, 'SELECT count(*)::int AS n FROM vigil_reports'))[0]!.n;
      assert.equal(counts.stored, stored);
      assert.equal(
        answered(all) - stored,
        counts.dropped,
        `answered ${answered(all)}, stored ${stored}, dropped ${counts.dropped}`,
      );
      const opened = await ask(service, { path: `/_profiler/${back.token}`, headers: JSON_ACCEPT });
      assert.equal(opened.status, 200, 'a report made once the server was back is stored');
      // The queue (20 000 reports) never fills here: every report answered with a token is
      // stored, those that waited while the server was down included; the others had no token.
      const tokens = all.flatMap((sent) => sent.tokens).filter((token) => /^[0-9a-f]{6}$/.test(token));
      const storedTokens = (await server.query<{ token: string }>(dsn, 'SELECT token FROM vigil_reports')).map(
        (row) => row.token,
      );
      assert.deepEqual(storedTokens.sort(), tokens.sort(), 'every report answered with a token is stored');
      const queuedThrough = (
        await server.query<{ n: number }>(
          dsn,
          "SELECT count(*)::int AS n FROM vigil_reports WHERE url LIKE '%/during/%' OR url LIKE '%/down/%'",
        )
      )[0]!.n;
      t.diagnostic(
        `answered ${answered(all)} (${all[1]!.statuses.length + all[2]!.statuses.length} while the server stopped or was down), stored ${stored} (${queuedThrough} of those), dropped ${counts.dropped}`,
      );
      assert.match(service.output(), /report store write failed.*is unavailable: /);
      // Failure lines are paced (one a second at most): the recovery is said with the next one.
      for (let waited = 0; waited < 5_000 && !/it succeeds again/.test(service.output()); waited += 50) await sleep(50);
      assert.match(service.output(), /it succeeds again/);
    } finally {
      if (down) await server.start();
      await service.stop();
    }
  });
});

describe('PostgreSQL down at start: the service starts and answers, and stores reports once the server is up', () => {
  it('answers every request without a report while no token can be leased, answers the profiler 503, then stores reports', async (t) => {
    const dsn = await server.database('late');
    await server.stop();
    let service: Service | undefined;
    let down = true;
    try {
      service = await startService({ PROFILER_DSN: dsn });
      const all: Sent[] = [await sendMany(service, { count: 200, concurrency: 8, path: (i) => `/early/${i}` })];
      assert.ok(
        all[0]!.tokens.every((token) => token === 'undefined'),
        'no token could be leased: none is given',
      );
      const page = await ask(service, { path: '/_profiler', headers: JSON_ACCEPT });
      assert.equal(page.status, 503);
      assert.match((JSON.parse(page.body) as { detail: string }).detail, /^Report store unavailable: /);
      assert.match(service.output(), /token lease failed: .*is unavailable: connect ECONNREFUSED/);

      await server.start();
      down = false;
      const back = await tokenOnceBack(service, '/late');
      all.push(...back.sent);
      assertAll404(all);
      const opened = await ask(service, { path: `/_profiler/${back.token}`, headers: JSON_ACCEPT });
      assert.equal(opened.status, 200);
      assert.deepEqual(await server.query(dsn, 'SELECT version FROM vigil_schema_version ORDER BY version'), [
        { version: 1 },
        { version: 2 },
        { version: 3 },
      ]);
      const counts = await settledCounts(service);
      assert.equal(answered(all) - counts.stored, counts.dropped);
      t.diagnostic(`answered ${answered(all)}, stored ${counts.stored}, dropped ${counts.dropped}`);
    } finally {
      if (down) await server.start();
      await service?.stop();
    }
  });
});
