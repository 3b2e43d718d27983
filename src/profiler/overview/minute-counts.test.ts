import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantile } from './latency-histogram.js';
import {
  addMinute,
  countSample,
  emptyMinute,
  KEY_MAX,
  KEYS_PER_KIND,
  OTHER,
  type OverviewSample,
} from './minute-counts.js';

function sample(overrides: Partial<OverviewSample> = {}): OverviewSample {
  return {
    time: 1_000,
    method: 'GET',
    route: '/users/:id',
    status: 200,
    durationMs: 10,
    token: null,
    statements: [],
    calls: [],
    exception: null,
    ...overrides,
  };
}

describe('minute counts', () => {
  it('counts requests by route with their 4xx, 5xx and the slowest kept report', () => {
    const minute = emptyMinute();
    countSample(minute, sample());
    countSample(minute, sample({ status: 404, durationMs: 5 }));
    countSample(minute, sample({ status: 503, durationMs: 90, token: 'abc123' }));
    countSample(minute, sample({ status: 500, durationMs: 40, token: 'def456' }));
    countSample(minute, sample({ route: null, status: 404 }));
    const route = minute.routes['GET /users/:id']!;
    assert.deepEqual(
      [route.requests, route.clientErrors, route.serverErrors, route.slowest],
      [4, 1, 2, { ms: 90, token: 'abc123' }],
    );
    assert.equal(minute.routes['GET (no route)']!.requests, 1);
  });

  it('counts statements by text, with the routes that ran them and the worst repeat in one request', () => {
    const minute = emptyMinute();
    const select = { system: 'postgresql', text: 'SELECT * FROM users WHERE id = ?', durationMs: 2 };
    countSample(minute, sample({ statements: [select, select, select], token: 'n1' }));
    countSample(minute, sample({ route: '/orders', statements: [select] }));
    const held = minute.statements[`postgresql ${select.text}`]!;
    assert.deepEqual(
      [held.count, held.totalMs, held.routes, held.worstRepeat, held.worstRepeatToken],
      [4, 8, ['GET /users/:id', 'GET /orders'], 3, 'n1'],
    );
  });

  it('counts upstream calls by method and host, failures as errors', () => {
    const minute = emptyMinute();
    const call = { method: 'GET', host: 'api.example.com', durationMs: 30, failed: false };
    countSample(minute, sample({ calls: [call, { ...call, failed: true, durationMs: null }] }));
    assert.deepEqual(
      [minute.upstreams['GET api.example.com']!.calls, minute.upstreams['GET api.example.com']!.errors],
      [2, 1],
    );
  });

  it('groups exceptions by fingerprint with first and last seen and the newest report', () => {
    const minute = emptyMinute();
    const exception = { fingerprint: 'f1', className: 'TypeError', place: 'src/a.ts:3', message: 'x of #' };
    countSample(minute, sample({ time: 5, exception, token: 't1' }));
    countSample(minute, sample({ time: 9, exception, token: 't2' }));
    countSample(minute, sample({ time: 7, exception }));
    assert.deepEqual(
      { ...minute.exceptions.f1 },
      {
        className: 'TypeError',
        place: 'src/a.ts:3',
        message: 'x of #',
        count: 3,
        first: 5,
        last: 9,
        newestToken: 't2',
      },
    );
  });

  it(`holds at most ${KEYS_PER_KIND} routes, counting the rest under ${OTHER}`, () => {
    const minute = emptyMinute();
    for (let i = 0; i < KEYS_PER_KIND + 500; i++) countSample(minute, sample({ route: `/r${i}` }));
    assert.equal(Object.keys(minute.routes).length, KEYS_PER_KIND + 1);
    assert.equal(minute.routes[OTHER]!.requests, 500);
  });

  it(`cuts a key past ${KEY_MAX} characters, so a 10 KiB statement holds no more than a short one`, () => {
    const minute = emptyMinute();
    const long = `SELECT ${'x, '.repeat(5000)}y FROM t`;
    countSample(minute, sample({ statements: [{ system: 'pg', text: long, durationMs: 1 }] }));
    countSample(minute, sample({ statements: [{ system: 'pg', text: `${long} WHERE z = ?`, durationMs: 1 }] }));
    const keys = Object.keys(minute.statements);
    assert.equal(keys.length, 1, 'both cut to the same key');
    assert.equal(keys[0]!.length, KEY_MAX + 1);
    assert.equal(minute.statements[keys[0]!]!.worstRepeat, 1);
  });

  it('keeps keys a request names out of the prototype', () => {
    const minute = emptyMinute();
    countSample(minute, sample({ exception: { fingerprint: '__proto__', className: 'E', place: '', message: '' } }));
    assert.equal(minute.exceptions.__proto__?.count, 1);
    assert.equal(Object.getPrototypeOf(minute.exceptions), null);
  });

  it("adds two workers' minutes into the counts of the whole", () => {
    const [one, two, whole] = [emptyMinute(), emptyMinute(), emptyMinute()];
    for (let i = 1; i <= 100; i++) {
      const request = sample({
        durationMs: i,
        status: i % 10 === 0 ? 500 : 200,
        token: i % 10 === 0 ? `t${i}` : null,
        statements: [{ system: 'pg', text: 'SELECT ?', durationMs: i / 10 }],
        calls: [{ method: 'POST', host: 'up', durationMs: i, failed: i % 25 === 0 }],
      });
      countSample(i % 2 ? one : two, request);
      countSample(whole, request);
    }
    const merged = emptyMinute();
    addMinute(merged, one);
    addMinute(merged, two);
    assert.deepEqual(JSON.parse(JSON.stringify(merged)), JSON.parse(JSON.stringify(whole)));
    assert.equal(
      quantile(merged.routes['GET /users/:id']!.latency, 0.99),
      quantile(whole.routes['GET /users/:id']!.latency, 0.99),
    );
  });
});
