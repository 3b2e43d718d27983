import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { describe, it } from 'node:test';
import { collectGarbage } from '../../../test/support/gc.js';
import { RequestScope, runInScope } from '../../http/request-scope.js';
import { holdQueryChannels } from './query-channels.js';
import {
  MAX_CALLS,
  MAX_STATEMENT_LENGTH,
  MAX_STATEMENTS,
  RECALLS_BETWEEN_CHECKS,
  RequestActivity,
  SiteMemory,
  TRUST_AFTER,
  watchActivity,
} from './request-activity.js';

const call = {
  method: 'GET',
  url: 'http://x/',
  start: 0,
  duration: 1,
  status: 200,
  requestSize: null,
  responseSize: null,
  error: null,
  site: null,
};
const statement = {
  text: 'SELECT 1',
  system: 'postgresql',
  start: 0,
  duration: 1,
  rows: null,
  site: null,
  error: false,
};

describe('a report keeps at most 1,000 calls and 1,000 statements, each at most 10 KB, and counts the rest', () => {
  it('counts the calls and statements over the bound', () => {
    const activity = new RequestActivity(new RequestScope(0));
    for (let i = 0; i < MAX_CALLS + 7; i++) activity.addCall({ ...call });
    for (let i = 0; i < MAX_STATEMENTS + 3; i++) activity.addStatement({ ...statement });
    assert.equal(activity.calls.length, 1000);
    assert.equal(activity.callsOmitted, 7);
    assert.equal(activity.statements().length, 1000);
    assert.equal(activity.statementsOmitted, 3);
  });

  it('cuts a statement at 10 KB, saying how much was cut', () => {
    const activity = new RequestActivity(new RequestScope(0));
    activity.addStatement({ ...statement, text: `SELECT '${'x'.repeat(20_000)}'` });
    const text = activity.statements()[0]!.text;
    assert.ok(text.startsWith(`SELECT '${'x'.repeat(100)}`));
    assert.equal(text.slice(0, MAX_STATEMENT_LENGTH), `SELECT '${'x'.repeat(20_000)}'`.slice(0, MAX_STATEMENT_LENGTH));
    assert.ok(text.endsWith('…[cut 9,769 characters]'), text.slice(-40));
  });
});

describe('a library publishing a query TracingChannel is seen with no OpenTelemetry', () => {
  it('files a mysql2:query statement under the request that ran it, text only', async () => {
    const release = holdQueryChannels();
    try {
      const scope = new RequestScope(performance.now());
      const activity = watchActivity(scope);
      const channel = diagnosticsChannel.tracingChannel('mysql2:query');
      await runInScope(scope, () =>
        channel.tracePromise(async () => [[{ id: 1 }, { id: 2 }]], {
          query: 'SELECT id FROM t WHERE a = ?',
          values: ['secret-value'],
        }),
      );
      // Outside any request: not filed.
      await channel.tracePromise(async () => [[]], { query: 'SELECT 2', values: [] });
      assert.equal(activity.statements().length, 1);
      assert.equal(activity.statements()[0]!.text, 'SELECT id FROM t WHERE a = ?');
      assert.equal(activity.statements()[0]!.system, 'mysql');
      assert.equal(activity.statements()[0]!.rows, 2);
      assert.doesNotMatch(JSON.stringify(activity.statements()), /secret-value/);
    } finally {
      release();
    }
    assert.equal(diagnosticsChannel.tracingChannel('mysql2:query').hasSubscribers, false);
  });
});

describe('ioredis and node-redis commands are seen through their channels, arguments never kept', () => {
  it('files each command under the request that ran it, as its name and a ? per argument', async () => {
    const release = holdQueryChannels();
    try {
      const scope = new RequestScope(performance.now());
      const activity = watchActivity(scope);
      const ioredis = diagnosticsChannel.tracingChannel('ioredis:command');
      const nodeRedis = diagnosticsChannel.tracingChannel('node-redis:command');
      await runInScope(scope, async () => {
        await ioredis.tracePromise(async () => 'secret-reply', {
          command: 'get',
          args: ['session:secret-key'],
          database: 0,
          serverAddress: '127.0.0.1',
          serverPort: 6379,
        });
        await nodeRedis.tracePromise(async () => 1, {
          command: 'HSET',
          args: ['HSET', 'user:secret-key', 'email', '?'],
          database: 0,
          serverAddress: '127.0.0.1',
          serverPort: 6379,
          clientId: 'client-1',
        });
      });
      assert.deepEqual(
        activity.statements().map(({ text, system, rows }) => ({ text, system, rows })),
        [
          { text: 'GET ?', system: 'redis', rows: null },
          { text: 'HSET ? ? ?', system: 'redis', rows: null },
        ],
      );
      assert.doesNotMatch(JSON.stringify(activity.statements()), /secret/);
    } finally {
      release();
    }
    assert.equal(diagnosticsChannel.tracingChannel('ioredis:command').hasSubscribers, false);
    assert.equal(diagnosticsChannel.tracingChannel('node-redis:command').hasSubscribers, false);
  });
});

describe("a route's call sites are recalled once they held on requests in a row, and looked up again now and then", () => {
  /** A call: its line, and what it is (a statement's text); `null`: no application frame found. */
  type Call = { line: string | null; fingerprint?: string };
  /** One request to `route`: its database calls; what each found, and the stacks taken. */
  function request(route: string | undefined, calls: Array<string | null | Call>, memory = shared) {
    const activity = watchActivity(new RequestScope(0), memory, { method: 'GET', routeOptions: { url: route } });
    let walks = 0;
    const found = calls.map((call) => {
      const { line, fingerprint = 'SELECT 1' } = typeof call === 'object' && call !== null ? call : { line: call };
      return activity.siteFor('database', fingerprint, () => {
        walks++;
        return line;
      });
    });
    return { found, walks };
  }
  const shared = new SiteMemory();

  it(`looks up ${TRUST_AFTER} requests, recalls the next ${RECALLS_BETWEEN_CHECKS}, then looks again`, () => {
    const route = '/recall-cycle';
    const walks = [];
    for (let i = 0; i < TRUST_AFTER + RECALLS_BETWEEN_CHECKS + 2; i++) {
      const { found, walks: taken } = request(route, ['src/a.ts:1', 'src/a.ts:2']);
      assert.deepEqual(
        found.map((site) => site.site),
        ['src/a.ts:1', 'src/a.ts:2'],
      );
      assert.ok(found.every((site) => site.recalled === (taken === 0)));
      walks.push(taken);
    }
    assert.deepEqual(walks, [...Array(TRUST_AFTER).fill(2), ...Array(RECALLS_BETWEEN_CHECKS).fill(0), 2, 0]);
  });

  it('starts over when a look finds another line, and keeps each call of a request apart', () => {
    const route = '/recall-change';
    for (let i = 0; i < TRUST_AFTER; i++) request(route, ['src/a.ts:1', 'src/a.ts:2']);
    for (let i = 0; i < RECALLS_BETWEEN_CHECKS; i++) assert.equal(request(route, ['x', 'y']).walks, 0);
    // Both calls reach their check on this request; it finds the first one moved.
    const moved = request(route, ['src/a.ts:9', 'src/a.ts:2']);
    assert.deepEqual(moved.found, [
      { site: 'src/a.ts:9', recalled: false },
      { site: 'src/a.ts:2', recalled: false },
    ]);
    // The second held: recalled again; the first is looked up until it holds as long.
    const next = request(route, ['src/a.ts:9', 'src/a.ts:2']);
    assert.deepEqual(next.found, [
      { site: 'src/a.ts:9', recalled: false },
      { site: 'src/a.ts:2', recalled: true },
    ]);
    for (let i = 2; i < TRUST_AFTER; i++) request(route, ['src/a.ts:9', 'src/a.ts:2']);
    assert.deepEqual(request(route, ['x', 'y']).found[0], { site: 'src/a.ts:9', recalled: true });
  });

  it('looks up a call whose place holds another statement than before (a branch, a loop run fewer times)', () => {
    const route = '/recall-fingerprint';
    for (let i = 0; i < TRUST_AFTER; i++) request(route, [{ line: 'src/a.ts:1', fingerprint: 'SELECT a' }]);
    assert.deepEqual(request(route, [{ line: 'x', fingerprint: 'SELECT a' }]).found, [
      { site: 'src/a.ts:1', recalled: true },
    ]);
    assert.deepEqual(request(route, [{ line: 'src/b.ts:7', fingerprint: 'SELECT b' }]).found, [
      { site: 'src/b.ts:7', recalled: false },
    ]);
  });

  it('remembers a call that has no line of the application, without marking it recalled', () => {
    const route = '/recall-none';
    const walks = [];
    for (let i = 0; i < TRUST_AFTER + 2; i++) {
      const { found, walks: taken } = request(route, [null]);
      assert.deepEqual(found, [{ site: null, recalled: false }]);
      walks.push(taken);
    }
    assert.deepEqual(walks, [...Array(TRUST_AFTER).fill(1), 0, 0]);
  });

  it('never recalls for an unrouted request, and keeps routes, and instances, apart', () => {
    for (let i = 0; i < TRUST_AFTER + 2; i++) assert.equal(request(undefined, ['src/a.ts:1']).walks, 1);
    for (let i = 0; i < TRUST_AFTER; i++) request('/one', ['src/one.ts:1']);
    assert.deepEqual(request('/two', ['src/two.ts:1']).found, [{ site: 'src/two.ts:1', recalled: false }]);
    assert.deepEqual(request('/one', ['ignored']).found, [{ site: 'src/one.ts:1', recalled: true }]);
    // Another instance (another application in the process) remembers nothing of this one's.
    assert.deepEqual(request('/one', ['src/other.ts:3'], new SiteMemory()).found, [
      { site: 'src/other.ts:3', recalled: false },
    ]);
  });
});

describe('the call-site memory stays bounded, whatever the statements (issue 41, item 6)', () => {
  /** Heap kept by `memory` after `fill`, per call of `fill`, once `memory` is all that is left of it. */
  function keptPerCall(count: number, fill: (memory: SiteMemory, i: number) => void): number {
    const memory = new SiteMemory();
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) fill(memory, i);
    collectGarbage();
    const kept = process.memoryUsage().heapUsed - before;
    assert.ok(memory instanceof SiteMemory);
    return kept / count;
  }
  /** One request to `route` running `text` twice from one line, as a loop of two would. */
  function runTwice(memory: SiteMemory, route: string, text: string): void {
    const activity = watchActivity(new RequestScope(0), memory, { method: 'GET', routeOptions: { url: route } });
    for (let run = 0; run < 2; run++) {
      activity.siteFor('database', text, () => 'src/a.ts:1');
      activity.followRun(text, 'src/a.ts:1', true);
    }
  }
  const unique = (i: number, length: number) => `SELECT ${String(i).padStart(8, '0')} ${'x'.repeat(length)}`;

  it('keeps no long statement, run twice on one route or once on many', () => {
    // A unique 400 KB statement per request: each was kept whole, as a line seen repeating it.
    const repeated = keptPerCall(100, (memory, i) => runTwice(memory, '/one-route', unique(i, 400_000)));
    assert.ok(repeated < 20_000, `${Math.round(repeated)} bytes per request`);
    const routed = keptPerCall(100, (memory, i) => runTwice(memory, `/route-${i}`, unique(i, 400_000)));
    assert.ok(routed < 20_000, `${Math.round(routed)} bytes per route`);
  });

  it('keeps no text a short statement was cut from', () => {
    const perCall = keptPerCall(100, (memory, i) => runTwice(memory, `/cut-${i}`, unique(i, 1_000_000).slice(0, 40)));
    assert.ok(perCall < 20_000, `${Math.round(perCall)} bytes per request`);
  });

  it('bounds the whole memory, however many routes and calls', () => {
    // 1,000 routes, each with 64 statements of 200 characters: every place of every route taken.
    const memory = new SiteMemory();
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let route = 0; route < 1000; route++) {
      const activity = watchActivity(new RequestScope(0), memory, {
        method: 'GET',
        routeOptions: { url: `/r${route}` },
      });
      for (let place = 0; place < 64; place++)
        activity.siteFor('database', `${unique(route * 64 + place, 180)}`, () => `src/a.ts:${place}`);
    }
    collectGarbage();
    const kept = process.memoryUsage().heapUsed - before;
    assert.ok(kept < 8_000_000, `${Math.round(kept / 1e6)} MB kept`);
    assert.ok(memory instanceof SiteMemory);
  });

  it('still recalls a long statement by what it is, and tells two long ones apart', () => {
    const memory = new SiteMemory();
    const long = unique(1, 5_000);
    const other = `${long.slice(0, -1)}y`;
    const found = (text: string, line: string) => {
      const activity = watchActivity(new RequestScope(0), memory, { method: 'GET', routeOptions: { url: '/long' } });
      return activity.siteFor('database', text, () => line);
    };
    for (let i = 0; i < TRUST_AFTER; i++) found(long, 'src/a.ts:1');
    assert.deepEqual(found(long, 'x'), { site: 'src/a.ts:1', recalled: true });
    assert.deepEqual(found(other, 'src/b.ts:2'), { site: 'src/b.ts:2', recalled: false });
  });
});
