/**
 * What every report store must do, whatever keeps it: one suite of tests that a store's
 * test file runs with a factory of fresh stores (`sqlite-store.test.ts` for SQLite,
 * `postgres-store.test.ts` for PostgreSQL). Writes
 * read back whole, a stored token is never overwritten, the search has Symfony's semantics,
 * retention deletes by count and age, and several handles on one store (several processes)
 * share its token counter and its retention lease.
 */
import { countSample, emptyMinute } from '../../src/profiler/overview/minute-counts.js';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TOKEN_PATTERN } from '../../src/profiler/tokens/token.js';
import { WINDOW } from '../../src/profiler/storage/search-windows.js';
import type { ReportSearch } from '../../src/profiler/model/report.js';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import { encoded, report, T0 } from '../support/reports.js';
import { storedTokens } from '../support/stores.js';
import { reportFactsContract } from './store-facts-contract.js';

/** One fresh, empty store, which any number of handles (unopened) may be made on, as processes would. */
export interface StoreFixture {
  handle(): ReportStore;
}

const YEAR_MS = 365 * 86_400_000;

export function reportStoreContract(name: string, freshStore: () => StoreFixture | Promise<StoreFixture>): void {
  describe(`${name} passes the report store contract`, () => {
    let fixture: StoreFixture;
    let store: ReportStore;
    let opened: ReportStore[];
    /** Another handle on the same store, opened. */
    const another = async () => {
      const handle = fixture.handle();
      await handle.open();
      opened.push(handle);
      return handle;
    };
    beforeEach(async () => {
      fixture = await freshStore();
      opened = [];
      store = await another();
    });
    afterEach(async () => {
      await Promise.all(opened.map((handle) => handle.close()));
    });

    describe("the overview's minutes", () => {
      const minuteOf = (requests: number, status = 200) => {
        const counts = emptyMinute();
        for (let i = 0; i < requests; i++)
          countSample(counts, {
            time: 0,
            method: 'GET',
            route: '/orders/:id',
            status,
            durationMs: 10 + i,
            token: null,
            statements: [{ system: 'postgresql', text: 'SELECT ?', durationMs: 1 }],
            calls: [],
            exception: null,
          });
        return counts;
      };

      const keepAll = { hourlyBefore: 0, deleteBefore: 0 };

      it("adds up every holder's minutes, and a holder's own minute written twice", async () => {
        const other = await another();
        await store.writeOverview('worker-1', [{ minute: 100, counts: minuteOf(3) }], keepAll);
        await other.writeOverview('worker-2', [{ minute: 100, counts: minuteOf(4, 500) }], keepAll);
        await store.writeOverview('worker-1', [{ minute: 101, counts: minuteOf(2) }], keepAll);
        await store.writeOverview('worker-1', [{ minute: 101, counts: minuteOf(1) }], keepAll);
        const total = await other.readOverview(100);
        const route = total.routes['GET /orders/:id']!;
        assert.deepEqual([route.requests, route.serverErrors], [10, 4]);
        assert.equal(total.statements['postgresql SELECT ?']!.count, 10);
        assert.equal((await store.readOverview(101)).routes['GET /orders/:id']!.requests, 3);
      });

      it("rolls a holder's minutes before an hour up into that hour, whose window reads them all", async () => {
        const other = await another();
        // Minutes 120 to 179 are the hour starting at 120; 185 stays a minute.
        for (const minute of [120, 150, 179, 185])
          await store.writeOverview('worker-1', [{ minute, counts: minuteOf(1) }], keepAll);
        await other.writeOverview('worker-2', [{ minute: 130, counts: minuteOf(5) }], keepAll);
        await store.writeOverview('worker-1', [], { hourlyBefore: 180, deleteBefore: 0 });
        assert.equal(
          (await store.readOverview(0)).routes['GET /orders/:id']!.requests,
          9,
          'nothing lost in the roll-up',
        );
        // A window from minute 170 reads the whole hour that reaches it, and another holder's minutes as they were.
        assert.equal((await store.readOverview(170)).routes['GET /orders/:id']!.requests, 4);
        assert.equal((await store.readOverview(181)).routes['GET /orders/:id']!.requests, 1);
        await store.writeOverview('worker-1', [{ minute: 160, counts: minuteOf(2) }], {
          hourlyBefore: 180,
          deleteBefore: 0,
        });
        assert.equal(
          (await store.readOverview(0)).routes['GET /orders/:id']!.requests,
          11,
          'a late minute joins its hour',
        );
      });

      it('deletes the rows that end before the minute a write names', async () => {
        await store.writeOverview('worker-1', [{ minute: 10, counts: minuteOf(1) }], keepAll);
        await store.writeOverview('worker-1', [{ minute: 20, counts: minuteOf(2) }], {
          hourlyBefore: 0,
          deleteBefore: 15,
        });
        assert.equal((await store.readOverview(0)).routes['GET /orders/:id']!.requests, 2);
      });

      it('reads none from a store that has no minutes', async () => {
        assert.deepEqual(Object.keys((await store.readOverview(0)).routes), []);
      });
    });
    reportFactsContract(() => store);

    describe('a written report reads back whole', () => {
      it('keeps the summary and every section, and counts it', async () => {
        const written = report('a1b2c3', {
          collectors: { request: { headers: { host: 'x' } }, logs: { lines: [], omitted: 0 } },
        });
        assert.deepEqual(await store.write(encoded([written])), { rejected: [], failed: [] });
        assert.deepEqual(await store.read('a1b2c3'), written);
        assert.equal(await store.read('ffffff'), undefined);
        assert.equal(await store.count(), 1);
        assert.deepEqual(await storedTokens(store), ['a1b2c3']);
      });

      it('is read through another handle on the same store', async () => {
        await store.write(encoded([report('0000aa')]));
        const other = await another();
        assert.deepEqual(await other.read('0000aa'), report('0000aa'));
        assert.equal(await other.count(), 1);
      });
    });

    describe('a token already stored is never overwritten', () => {
      it('rejects the newcomer and keeps the first report', async () => {
        await store.write(encoded([report('000001', { url: 'https://localhost/first' })]));
        const { rejected } = await store.write(
          encoded([report('000001', { url: 'https://localhost/second' }), report('000002')]),
        );
        assert.deepEqual(rejected, ['000001']);
        assert.equal((await store.read('000001'))!.url, 'https://localhost/first');
        assert.equal(await store.count(), 2);
      });

      it('rejects it from another handle too', async () => {
        await store.write(encoded([report('000001', { url: 'https://localhost/first' })]));
        const other = await another();
        assert.deepEqual(
          (await other.write(encoded([report('000001', { url: 'https://localhost/other' })]))).rejected,
          ['000001'],
        );
        assert.equal((await store.read('000001'))!.url, 'https://localhost/first');
      });
    });

    describe('search: ip and url match a part, method and status exactly, token a prefix, time inclusive, newest first', () => {
      beforeEach(async () => {
        await store.write(
          encoded([
            report('aaaa01', {
              time: T0,
              method: 'GET',
              status: 404,
              ip: '127.0.0.1',
              url: 'https://localhost/robots.txt',
            }),
            report('aaaa02', {
              time: T0 + 1000,
              method: 'POST',
              status: 405,
              ip: '192.168.1.20',
              url: 'https://localhost/items',
            }),
            report('bbbb03', {
              time: T0 + 2000,
              method: 'GET',
              status: 200,
              ip: '::1',
              url: 'https://localhost/hello?x=1',
            }),
            report('bbbb04', {
              time: T0 + 86_400_000,
              method: 'PUT',
              status: 404,
              ip: '192.168.1.21',
              url: 'https://localhost/items/abc',
            }),
          ]),
        );
      });
      const tokens = async (filters: ReportSearch) => (await store.search(filters)).reports.map((found) => found.token);

      it('lists everything newest first without filters, summaries only', async () => {
        const found = (await store.search({})).reports;
        assert.deepEqual(
          found.map((r) => r.token),
          ['bbbb04', 'bbbb03', 'aaaa02', 'aaaa01'],
        );
        assert.deepEqual(Object.keys(found[0]!).sort(), [
          ...['calls', 'duration', 'exception', 'fingerprint', 'ip', 'method', 'route'],
          ...['statements', 'status', 'time', 'token', 'url'],
        ]);
      });
      it('matches part of the IP', async () =>
        assert.deepEqual(await tokens({ ip: '192.168.1.' }), ['bbbb04', 'aaaa02']));
      it('matches the method exactly, in any case', async () => {
        assert.deepEqual(await tokens({ method: 'get' }), ['bbbb03', 'aaaa01']);
        assert.deepEqual(await tokens({ method: 'GE' }), []);
      });
      it('matches the status exactly', async () => {
        assert.deepEqual(await tokens({ statusCode: 404 }), ['bbbb04', 'aaaa01']);
        assert.deepEqual(await tokens({ statusCode: 40 }), []);
      });
      it('matches part of the URL, query included', async () => {
        assert.deepEqual(await tokens({ url: '/items' }), ['bbbb04', 'aaaa02']);
        assert.deepEqual(await tokens({ url: '?x=1' }), ['bbbb03']);
      });
      it('matches a token prefix, in any case, and only a prefix', async () => {
        assert.deepEqual(await tokens({ token: 'AAAA' }), ['aaaa02', 'aaaa01']);
        assert.deepEqual(await tokens({ token: 'aa02' }), []);
      });
      it('keeps start and end inclusive', async () =>
        assert.deepEqual(await tokens({ start: T0 + 1000, end: T0 + 2000 }), ['bbbb03', 'aaaa02']));
      it('combines filters', async () => assert.deepEqual(await tokens({ statusCode: 404, ip: '192.' }), ['bbbb04']));
      it('with a budget, goes on below where it stopped to what a search without one finds', async () => {
        for (const filters of [{}, { url: '/items' }, { ip: '192.' }, { url: 'it', statusCode: 404 }]) {
          const paged: string[] = [];
          let before: number | undefined;
          for (let page = 0; page === 0 || before !== undefined; page++) {
            const found = await store.search({ ...filters, budgetMs: 0, before });
            paged.push(...found.reports.map((r) => r.token));
            before = found.continueBelow;
          }
          assert.deepEqual(paged, await tokens(filters), JSON.stringify(filters));
        }
        assert.deepEqual(await tokens({ before: 1 }), []);
        assert.deepEqual(await tokens({ url: '/items', before: 1 }), []);
      });
      it('with a budget, reads at most a window of reports a step, even for a part every report holds and a filter none meets', async () => {
        const count = 2 * WINDOW + 100;
        for (let from = 0; from < count; from += 2000)
          await store.write(
            encoded(
              Array.from({ length: Math.min(2000, count - from) }, (_, i) =>
                report(`e${(from + i).toString(16).padStart(5, '0')}`, { url: `https://localhost/items/${from + i}` }),
              ),
            ),
          );
        for (const filters of [
          { url: 'localhost', statusCode: 599 },
          { url: '/items/', method: 'DELETE' },
          { ip: '127.0.', start: T0 + YEAR_MS },
        ]) {
          assert.deepEqual(await tokens(filters), [], JSON.stringify(filters));
          let pages = 0;
          let before: number | undefined;
          do {
            const page = await store.search({ ...filters, budgetMs: 0, before });
            assert.deepEqual(page.reports, []);
            before = page.continueBelow;
            pages++;
          } while (before !== undefined && pages <= count);
          // Each page of a budget spent at once reads one step.
          assert.ok(pages >= 3 && pages <= 4, `${JSON.stringify(filters)}: ${pages} pages`);
        }
      });
      it('stops at the limit, 100 by default', async () => {
        assert.deepEqual(await tokens({ limit: 2 }), ['bbbb04', 'bbbb03']);
        await store.write(
          encoded(Array.from({ length: 150 }, (_, i) => report(`c${i.toString(16).padStart(5, '0')}`))),
        );
        assert.equal((await store.search({})).reports.length, 100);
      });
      it('takes a filter as data, never as a query', async () =>
        assert.deepEqual(await tokens({ url: "' OR 1=1 --" }), []));
      it('takes % and _ in a filter as themselves, not as wildcards', async () => {
        for (const url of ['%', '_', 'i_ems', 'robots%txt', '\\']) assert.deepEqual(await tokens({ url }), [], url);
        await store.write(encoded([report('dddd01', { time: T0 + 4000, url: 'https://localhost/100%_sure\\x' })]));
        assert.deepEqual(await tokens({ url: '%_' }), ['dddd01']);
        assert.deepEqual(await tokens({ url: '\\x' }), ['dddd01']);
        assert.deepEqual(await tokens({ token: '%' }), []);
        assert.deepEqual(await tokens({ token: '_' }), []);
      });
      it('takes % _ and \\ literally in a part of 3 characters or more (what a trigram index answers), and matches case exactly', async () => {
        await store.write(
          encoded([
            report('dddd01', { time: T0 + 4000, url: 'https://localhost/100%_sure\\x', ip: '10.0.0.1' }),
            report('dddd02', { time: T0 + 5000, url: 'https://localhost/1000_sure', ip: '10.0.0.12' }),
          ]),
        );
        assert.deepEqual(await tokens({ url: '100%_sure' }), ['dddd01']);
        assert.deepEqual(await tokens({ url: '0%_s' }), ['dddd01']);
        assert.deepEqual(await tokens({ url: 'sure\\x' }), ['dddd01']);
        assert.deepEqual(await tokens({ url: '100_sure' }), []);
        assert.deepEqual(await tokens({ url: 'ITEMS' }), []);
        assert.deepEqual(await tokens({ ip: '10.0.0.1' }), ['dddd02', 'dddd01']);
        assert.deepEqual(await tokens({ ip: '0.0.1', url: '_sure', method: 'get', statusCode: 404, token: 'DDDD' }), [
          'dddd02',
          'dddd01',
        ]);
      });
      it('finds nothing for a filter or a token holding a NUL character', async () => {
        assert.deepEqual(await tokens({ url: 'items\u0000' }), []);
        assert.deepEqual(await tokens({ token: 'aa\u0000' }), []);
        assert.equal(await store.read('aaaa01\u0000'), undefined);
      });
      it('puts the report written last first within one millisecond', async () => {
        await store.write(encoded([report('cccc01', { time: T0 + 3000 }), report('cccc02', { time: T0 + 3000 })]));
        assert.deepEqual(await tokens({ token: 'cccc' }), ['cccc02', 'cccc01']);
      });
    });

    describe('retention deletes the oldest beyond the count and everything beyond the age', () => {
      beforeEach(async () => {
        await store.write(
          encoded(Array.from({ length: 10 }, (_, i) => report(`00000${i}`, { time: T0 + i * 60_000 }))),
        );
      });

      it('keeps the newest maxReports and says how many it deleted', async () => {
        assert.equal(await store.purge({ maxReports: 4, maxAgeMs: YEAR_MS }, { now: T0 + 10 * 60_000 }), 6);
        assert.deepEqual(await storedTokens(store), ['000006', '000007', '000008', '000009']);
        assert.equal(await store.count(), 4);
      });

      it('deletes reports older than maxAge', async () => {
        // At T0 + 10 min, a 3-minute age keeps the reports of minutes 7, 8 and 9.
        assert.equal(await store.purge({ maxReports: 100, maxAgeMs: 3 * 60_000 }, { now: T0 + 10 * 60_000 }), 7);
        assert.deepEqual(await storedTokens(store), ['000007', '000008', '000009']);
      });

      it('applies both limits: whichever deletes more', async () => {
        await store.purge({ maxReports: 2, maxAgeMs: 3 * 60_000 }, { now: T0 + 10 * 60_000 });
        assert.deepEqual(await storedTokens(store), ['000008', '000009']);
      });

      it('deletes nothing within the limits', async () => {
        assert.equal(await store.purge({ maxReports: 10, maxAgeMs: 86_400_000 }, { now: T0 + 10 * 60_000 }), 0);
        assert.equal(await store.count(), 10);
      });

      it('deletes only reports stored when it began, and ends while a writer keeps writing', async () => {
        const hex = (n: number) => n.toString(16).padStart(6, '0');
        const batch = (from: number, length: number) =>
          encoded(Array.from({ length }, (_, i) => report(hex(from + i), { time: T0 + 3_600_000 + from + i })));
        for (let from = 0x100; from < 0x100 + 3000; from += 1000) await store.write(batch(from, 1000));
        // 3,010 reports; 1,000 kept: 2,010 over the count. A writer adds faster than a chunk deletes.
        const purging = store.purge({ maxReports: 1000, maxAgeMs: YEAR_MS }, { now: T0 + 3_600_000 });
        let purged = false;
        void purging.finally(() => (purged = true));
        let written = 0;
        for (let next = 0x10000; !purged && written < 20_000; next += 2000, written += 2000)
          await store.write(batch(next, 2000));
        const deleted = (await purging) ?? 0;
        // The oldest of the 3,010 only: chasing the writer, it would have deleted what the writer wrote too.
        assert.ok(deleted >= 2010 && deleted <= 3010, `deleted ${deleted} of ${2010 + written} over the count`);
        assert.equal(await store.count(), 3010 + written - deleted);
      });

      it('clears everything on demand', async () => {
        assert.equal(await store.clear(), 10);
        assert.equal(await store.count(), 0);
      });
    });

    describe('retention and "newest" follow arrival order, not the clock: a clock stepped back loses nothing new', () => {
      // Written first, an hour ahead of the reports that follow: as after the clock is stepped back.
      const ahead = Array.from({ length: 6 }, (_, i) => report(`f0000${i}`, { time: T0 + 3_600_000 + i }));
      const after = Array.from({ length: 4 }, (_, i) => report(`a0000${i}`, { time: T0 + i }));
      beforeEach(async () => {
        await store.write(encoded(ahead));
      });

      it('a write that keeps N deletes the reports written first, whatever their time', async () => {
        await store.write(encoded(after));
        const { deleted } = await store.write(encoded([report('a00004', { time: T0 + 4 })]), 5);
        assert.equal(deleted, 6);
        assert.deepEqual(await storedTokens(store), ['a00000', 'a00001', 'a00002', 'a00003', 'a00004']);
      });

      it('a purge keeps the N written last, whatever their time', async () => {
        await store.write(encoded(after));
        assert.equal(await store.purge({ maxReports: 4, maxAgeMs: YEAR_MS }, { now: T0 }), 6);
        assert.deepEqual(await storedTokens(store), ['a00000', 'a00001', 'a00002', 'a00003']);
      });

      it('search lists the report written last first', async () => {
        await store.write(encoded(after));
        assert.deepEqual(
          (await store.search({ limit: 2 })).reports.map((found) => found.token),
          ['a00003', 'a00002'],
        );
        assert.deepEqual(
          (await store.search({ start: T0, limit: 1 })).reports.map((found) => found.token),
          ['a00003'],
        );
      });
    });

    describe('the token counter is leased in blocks that never overlap, from any number of handles', () => {
      it('gives the count asked for, 6 lower-case hex characters each, all different', async () => {
        const tokens = await store.leaseTokens(256);
        assert.equal(tokens.length, 256);
        assert.ok(
          tokens.every((token) => TOKEN_PATTERN.test(token)),
          tokens.join(' '),
        );
        assert.equal(new Set(tokens).size, 256);
      });

      it('never gives two handles the same token, however their leases interleave', async () => {
        const handles = [store, await another()];
        const leases = await Promise.all(Array.from({ length: 100 }, (_, i) => handles[i % 2]!.leaseTokens(256)));
        const all = leases.flat();
        assert.equal(all.length, 25_600);
        assert.equal(new Set(all).size, 25_600, 'no token was leased twice');
      });

      it('goes on from where it was after the store is closed and opened again', async () => {
        const first = await store.leaseTokens(300);
        await store.close();
        const reopened = await another();
        const next = await reopened.leaseTokens(300);
        assert.equal(new Set([...first, ...next]).size, 600);
      });

      it('gives tokens that the store then writes under, once each', async () => {
        const [a, b] = await store.leaseTokens(2);
        assert.deepEqual(await store.write(encoded([report(a!), report(b!)])), { rejected: [], failed: [] });
        assert.deepEqual(await storedTokens(store), [a, b].sort());
      });
    });

    describe('one handle at a time holds the retention lease: the others skip', () => {
      const retention = { maxReports: 5, maxAgeMs: YEAR_MS };
      const lease = (holder: string) => ({ holder, ms: 1000 });
      const fill = (from: number) =>
        store.write(
          encoded(
            Array.from({ length: 10 }, (_, i) =>
              report((from + i).toString(16).padStart(6, '0'), { time: T0 + from + i }),
            ),
          ),
        );

      it('runs for one holder within its lease, skips for another until it expires or is given up, and keeps maxReports', async () => {
        const other = await another();
        await fill(0);
        assert.equal(
          await store.purge(retention, { now: T0, lease: lease('a') }),
          5,
          'a takes the free lease and purges',
        );
        await fill(100);
        assert.equal(
          await other.purge(retention, { now: T0 + 10, lease: lease('b') }),
          undefined,
          'b skips while a holds it',
        );
        assert.equal(await store.count(), 15, 'a skipped run deletes nothing');
        assert.equal(
          await store.purge(retention, { now: T0 + 500, lease: lease('a') }),
          10,
          'a runs again within its lease, and renews it',
        );
        await fill(200);
        assert.equal(
          await other.purge(retention, { now: T0 + 1499, lease: lease('b') }),
          undefined,
          'the renewed lease lasts until T0 + 1500',
        );
        assert.equal(
          await other.purge(retention, { now: T0 + 1500, lease: lease('b') }),
          10,
          'b takes the expired lease',
        );
        assert.equal(await store.purge(retention, { now: T0 + 1600, lease: lease('a') }), undefined, 'now a skips');
        await other.releaseRetention('b');
        await fill(300);
        assert.equal(
          await store.purge(retention, { now: T0 + 1700, lease: lease('a') }),
          10,
          'a given-up lease is taken at once',
        );
        assert.equal(await store.count(), 5);
      });

      it('lets a purge without a lease run whoever holds it (the command line, a last run at shutdown)', async () => {
        const other = await another();
        await fill(0);
        assert.equal(await store.purge(retention, { now: T0, lease: lease('a') }), 5);
        await fill(100);
        assert.equal(await other.purge(retention, { now: T0 + 10 }), 10);
        assert.equal(await store.count(), 5);
      });

      it('gives nothing up for a holder that does not hold it', async () => {
        const other = await another();
        await fill(0);
        await store.purge(retention, { now: T0, lease: lease('a') });
        await other.releaseRetention('b');
        assert.equal(await other.purge(retention, { now: T0 + 10, lease: lease('b') }), undefined);
      });
    });
  });
}
