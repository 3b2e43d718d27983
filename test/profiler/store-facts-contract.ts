/**
 * The part of the report store contract on the facts kept beside the summary (issue 44): the
 * route, the exception and its fingerprint, the statements and calls, browser assets; the
 * search by them, and the exceptions grouped by fingerprint.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Report, ReportSearch } from '../../src/profiler/model/report.js';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import { encoded, report, T0 } from '../support/reports.js';

/** A report of a request the route `pattern` answered, raising `message` when given. */
function failing(token: string, time: number, message: string | undefined, overrides: Partial<Report> = {}): Report {
  const collectors: Record<string, unknown> = {
    request: { method: 'GET' },
    routing: { path: '/api/products/7', matched: { name: null, path: '/api/products/:id', methods: ['GET'] } },
    database: { texts: ['SELECT 1'], statements: [{ text: 0 }, { text: 0 }], omitted: 1, slowMs: 100 },
    httpClient: { calls: [{ url: 'https://upstream/' }], omitted: 0 },
  };
  if (message !== undefined)
    collectors.exception = { class: 'TypeError', message, code: 'E', status: 500, file: 'src/shop.ts', line: 12 };
  return report(token, { time: T0 + time, status: message ? 500 : 200, duration: time, collectors, ...overrides });
}

export function reportFactsContract(storeOf: () => ReportStore): void {
  describe('the facts kept beside the summary', () => {
    let store: ReportStore;
    beforeEach(async () => {
      store = storeOf();
      await store.write(
        encoded([
          failing('e00001', 1, 'product 7 has no price'),
          failing('e00002', 2, 'product 19 has no price', { method: 'POST' }),
          failing('e00003', 3, 'product 2023 has no price', { status: 502 }),
          failing('e00004', 4, 'cart a1b2c3d4 is "empty"'),
          failing('e00005', 50, undefined),
          // A browser's own request: listed, and left out of the groups.
          report('e00006', {
            time: T0 + 60,
            url: 'https://localhost/favicon.ico',
            collectors: { exception: { class: 'NotFoundHttpError', message: 'Not found', file: null, line: null } },
          }),
          report('e00007', { time: T0 + 70, url: 'https://localhost/.well-known/appspecific/com.chrome.json' }),
        ]),
      );
    });
    const tokens = async (filters: ReportSearch) => (await store.search(filters)).reports.map((found) => found.token);

    it('lists each report with its route, exception, fingerprint, statements and calls', async () => {
      const [newest, ...rest] = (await store.search({ limit: 4 })).reports;
      assert.deepEqual(
        { ...newest },
        { ...newest, route: null, exception: null, fingerprint: null, statements: 0, calls: 0 },
      );
      const failed = rest.find((found) => found.token === 'e00005')!;
      assert.deepEqual(
        [failed.route, failed.exception, failed.statements, failed.calls],
        ['/api/products/:id', null, 3, 1],
      );
      const [one, two] = (await store.search({ token: 'e0000' })).reports.filter((r) => r.exception === 'TypeError');
      assert.equal(one!.exception, 'TypeError');
      assert.match(one!.fingerprint!, /^[\w-]{16}$/);
      assert.notEqual(one!.fingerprint, two!.fingerprint);
    });
    it('searches by exception class, fingerprint, route and minimum duration', async () => {
      assert.deepEqual(await tokens({ exception: 'TypeError' }), ['e00004', 'e00003', 'e00002', 'e00001']);
      assert.deepEqual(await tokens({ exception: 'typeerror' }), []);
      const [, , , first] = (await store.search({ exception: 'TypeError' })).reports;
      assert.deepEqual(await tokens({ fingerprint: first!.fingerprint! }), ['e00003', 'e00002', 'e00001']);
      assert.deepEqual(await tokens({ route: '/api/products/:id', method: 'POST' }), ['e00002']);
      assert.deepEqual(await tokens({ route: '/api/products' }), []);
      assert.deepEqual(await tokens({ minDuration: 4, exception: 'TypeError' }), ['e00004']);
      assert.deepEqual(await tokens({ minDuration: 50, budgetMs: 50 }), ['e00005']);
      assert.deepEqual(await tokens({ exception: 'TypeError', statusCode: 500, budgetMs: 50 }), [
        'e00004',
        'e00002',
        'e00001',
      ]);
    });
    it("leaves a browser's own requests out when asked", async () => {
      assert.deepEqual(await tokens({ limit: 2 }), ['e00007', 'e00006']);
      assert.deepEqual(await tokens({ limit: 2, hideAssets: true }), ['e00005', 'e00004']);
      assert.deepEqual(await tokens({ limit: 1, hideAssets: true, budgetMs: 50 }), ['e00005']);
    });
    it('groups the exceptions by fingerprint: three differing only by an id make one group of 3', async () => {
      const groups = await store.exceptionGroups({ window: 1000, limit: 10 });
      assert.equal(groups.length, 2);
      const [cart, product] = groups;
      assert.deepEqual(
        { ...cart, fingerprint: undefined },
        {
          fingerprint: undefined,
          exception: 'TypeError',
          count: 1,
          firstSeen: T0 + 4,
          lastSeen: T0 + 4,
          statuses: [500],
          routes: ['GET /api/products/:id'],
          newest: 'e00004',
        },
      );
      assert.deepEqual(
        { ...product, fingerprint: undefined },
        {
          fingerprint: undefined,
          exception: 'TypeError',
          count: 3,
          firstSeen: T0 + 1,
          lastSeen: T0 + 3,
          statuses: [500, 502],
          routes: ['GET /api/products/:id', 'POST /api/products/:id'],
          newest: 'e00003',
        },
      );
      assert.deepEqual(await store.exceptionGroups({ window: 1000, limit: 1 }), [cart]);
      // Only the newest reports with an exception are read.
      assert.deepEqual(
        (await store.exceptionGroups({ window: 2, limit: 10 })).map((g) => g.count),
        [1, 1],
      );
    });
  });
}
