import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSqlite } from './sqlite-driver.js';
import { prepareSchema } from './sqlite-schema.js';
import { LOOKUP_SHARE, MAX_WEIGHED_TRIGRAMS, searchStatement, TrigramSample, trigramQuery } from './sqlite-search.js';

describe('the trigrams a part is looked up by', () => {
  it('covers the part with every third trigram and the last, quoted, when nothing says how common they are', () => {
    assert.equal(trigramQuery('/api/orders'), '"/ap" AND "i/o" AND "rde" AND "ers"');
    assert.equal(trigramQuery('a"bc'), '"a""b" AND """bc"');
    assert.equal(trigramQuery('ab'), undefined);
    assert.equal(trigramQuery('a\u0000bc'), undefined);
  });

  it('takes the rarest first, and stops once together they are rare enough', () => {
    const shares: Record<string, number> = {
      '/ap': 0.45,
      'i/o': 0.2,
      rde: 0.2,
      'rs/': 0.45,
      '597': 0.004,
      '056': 0.004,
    };
    assert.equal(
      trigramQuery('/api/orders/597056', (trigram) => shares[trigram] ?? 1),
      '"597" AND "056"',
      'two trigrams of 0.4 % are expected together in less than the lookup share',
    );
    assert.ok(0.004 * 0.004 <= LOOKUP_SHARE && 0.004 > LOOKUP_SHARE);
  });

  it('weighs a long part by a bounded number of its trigrams, spread over it', () => {
    const part = Array.from({ length: 700 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    let weighed = 0;
    const query = trigramQuery(part, () => (weighed++, 1))!;
    assert.equal(weighed, MAX_WEIGHED_TRIGRAMS);
    assert.equal(query.split(' AND ').length, MAX_WEIGHED_TRIGRAMS);
    assert.ok(query.startsWith(`"${part.slice(0, 3)}"`) && query.includes(part.slice(678, 681)), query.slice(-20));
  });

  it('keeps adding common trigrams while none is rare: together they narrow the lookup', () => {
    assert.equal(
      trigramQuery('alpha-bravo', () => 0.1),
      '"alp" AND "ha-" AND "bra" AND "avo"',
    );
  });
});

describe('a sample of values telling how common a trigram is', () => {
  it('gives the share of the values that hold it, a trigram none holds counting half a value', () => {
    const sample = new TrigramSample(['/api/users/1', '/api/orders/2', '/robots.txt']);
    assert.equal(sample.share('/ap'), 2.5 / 4);
    assert.equal(sample.share('bot'), 1.5 / 4);
    assert.equal(sample.share('zzz'), 0.5 / 4);
  });

  it('leads a lookup to the rarest trigrams of the part', () => {
    const values = Array.from({ length: 1000 }, (_, i) => `/api/orders/${100_000 + i * 7}/items`);
    const query = trigramQuery('/api/orders/597056/', new TrigramSample(values).share)!;
    assert.deepEqual(
      ['/ap', 'i/o', 'rde', 'rs/'].filter((common) => query.includes(common)),
      [],
      query,
    );
    assert.equal(query.split(' AND ').length, 2, query);
  });
});

describe('a search by token prefix', () => {
  it('takes the newest ids of a prefix from the token index alone, then reads only those reports', () => {
    const db = openSqlite(':memory:');
    try {
      prepareSchema(db);
      const { scan, values, limit } = searchStatement({ token: 'ab' }, true);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${scan}`).all(...values, limit) as Array<{ detail: string }>)
        .map((step) => step.detail)
        .join('\n');
      assert.match(plan, /USING COVERING INDEX reports_by_token/);
      assert.doesNotMatch(plan, /SCAN r\b/);
    } finally {
      db.close();
    }
  });
});

describe('a search with a budget by exact filters and time', () => {
  const planOf = (db: ReturnType<typeof openSqlite>, sql: string, values: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(values as string[])) as Array<{ detail: string }>)
      .map((step) => step.detail)
      .join('\n');

  it('walks one index newest first, the other filters checked on each report; a narrow time range reads the time index', () => {
    const db = openSqlite(':memory:');
    try {
      prepareSchema(db);
      const { walk, values, limit } = searchStatement(
        { statusCode: 200, method: 'post', start: 1, budgetMs: 20 },
        true,
      );
      assert.ok(walk?.narrow);
      assert.deepEqual(walk.driving, [200]);
      const walked = planOf(db, walk.sql, [...values, ...walk.driving, 10]);
      assert.match(walked, /USING INDEX reports_by_status \(status=\? AND id<\?\)/);
      assert.doesNotMatch(walked, /TEMP B-TREE/);
      assert.match(planOf(db, walk.narrow.scan, [...values, limit]), /USING INDEX reports_by_time/);
      assert.match(planOf(db, walk.narrow.count, walk.narrow.values), /USING COVERING INDEX reports_by_time/);
      const byMethod = searchStatement({ method: 'get', end: 5, budgetMs: 20 }, true);
      const methodWalk = byMethod.walk!;
      assert.match(
        planOf(db, methodWalk.sql, [...byMethod.values, ...methodWalk.driving, 10]),
        /USING INDEX reports_by_method/,
      );
    } finally {
      db.close();
    }
  });

  it('leaves a search one index answers, or one without a budget, to that index', () => {
    assert.ok(searchStatement({ statusCode: 200, budgetMs: 20 }, true).scan);
    assert.ok(searchStatement({ method: 'GET', budgetMs: 20 }, true).scan);
    assert.ok(searchStatement({ statusCode: 200, method: 'POST' }, true).scan);
    assert.ok(searchStatement({ statusCode: 200, method: 'POST', budgetMs: 20 }, false).scan);
  });
});
