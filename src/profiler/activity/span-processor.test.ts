import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { MAX_SPANS, RequestScope, runInScope, span } from '../../http/request-scope.js';
import { watchActivity } from './request-activity.js';
import { vigilPgResponseHook, vigilSpanProcessor, type TraceSpan } from './span-processor.js';

let ids = 0;

type FakeSpan = {
  -readonly [field in keyof TraceSpan]: TraceSpan[field];
};

/** A span as the SDK hands it over: an object of its own, with a context and attributes. */
function traceSpan(name: string, attributes: Record<string, unknown>, parentId?: string): FakeSpan {
  const context = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: (++ids).toString(16).padStart(16, '0') };
  return {
    name,
    attributes,
    parentSpanContext: parentId === undefined ? undefined : { spanId: parentId },
    spanContext: () => context,
    status: { code: 0 },
    ended: false,
    duration: [-1, -1],
  };
}

const QUERY = { 'db.system': 'postgresql', 'db.statement': 'SELECT one' };

describe('vigilSpanProcessor', () => {
  it('records a span once per processor, two processors on one provider each keeping their own', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    const processors = [vigilSpanProcessor(), vigilSpanProcessor()];
    runInScope(scope, () => {
      const span = traceSpan('pg.query', QUERY);
      for (const processor of processors) processor.onStart(span, undefined);
      for (const processor of processors) processor.onEnd(span);
      // Ended twice: nothing more is recorded.
      for (const processor of processors) processor.onEnd(span);
    });
    assert.equal(activity.statements().length, 2);
  });

  it('nests a span under its parent, and draws no span past the waterfall bound', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    const processor = vigilSpanProcessor();
    runInScope(scope, () => {
      const handler = traceSpan('handler', {});
      processor.onStart(handler, undefined);
      const child = traceSpan('pg.query', QUERY, handler.spanContext().spanId);
      processor.onStart(child, undefined);
      processor.onEnd(child);
      for (let i = 0; i < MAX_SPANS + 50; i++) {
        const span = traceSpan('pg.query', QUERY, handler.spanContext().spanId);
        processor.onStart(span, undefined);
        processor.onEnd(span);
      }
      processor.onEnd(handler);
    });
    const drawn = activity.lateSpans();
    assert.deepEqual(
      drawn.slice(0, 2).map(({ name, depth }) => [name, depth]),
      [
        ['handler', 0],
        // Named by its statement.
        ['SELECT one', 1],
      ],
    );
    assert.equal(drawn.length, MAX_SPANS);
    assert.equal(scope.spansOmitted, 52);
    // Statements have a bound of their own: every query past the waterfall's is one.
    assert.equal(activity.statements().length, MAX_SPANS + 51);
  });

  it("reads a span's end, status and rows when asked, and shares the waterfall's bound with span()", () => {
    const scope = new RequestScope(performance.now());
    const activity = watchActivity(scope);
    const processor = vigilSpanProcessor();
    const query = traceSpan('pg.query', { 'db.system': 'postgresql' });
    const running = traceSpan('pg.query', { ...QUERY });
    runInScope(scope, () => {
      span('own', () => {
        processor.onStart(query, undefined);
        processor.onStart(running, undefined);
      });
      for (let i = 0; i < MAX_SPANS; i++) span(`s${i}`, () => i);
    });
    // Set after the start, as pg's instrumentation does; the SDK then ends the span.
    Object.assign(query.attributes, { 'db.statement': 'SELECT two', 'db.response.returned_rows': 3 });
    Object.assign(query, { ended: true, duration: [0, 2_500_000], status: { code: 2 } });
    processor.onEnd(query);
    assert.deepEqual(
      activity.statements().map(({ text, duration, error, rows }) => [text, duration, error, rows]),
      [['SELECT two', 2.5, true, 3]],
    );
    assert.deepEqual(
      activity.lateSpans().map(({ name, duration, depth, error }) => [name, duration, depth, error]),
      [
        ['SELECT two', 2.5, 1, true],
        // Running: its statement is filed when it ends.
        ['pg.query', null, 1, false],
      ],
    );
    // One bound for both kinds: three places went to `own` and the two queries.
    assert.equal(scope.spans.length, MAX_SPANS - 2);
    assert.equal(scope.spansOmitted, 3);
  });

  it('keeps 1,000 statements past the waterfall, however many spans without one come between', () => {
    const scope = new RequestScope(performance.now());
    const activity = watchActivity(scope);
    const processor = vigilSpanProcessor();
    runInScope(scope, () => {
      // A pool's connect span (a database span with no statement), then its query, 1,100 times.
      for (let i = 0; i < 1100; i++) {
        const connect = traceSpan('pg-pool.connect', { 'db.system': 'postgresql' });
        processor.onStart(connect, undefined);
        processor.onEnd(connect);
        const query = traceSpan('pg.query', { 'db.system': 'postgresql' });
        processor.onStart(query, undefined);
        Object.assign(query.attributes, { 'db.statement': `SELECT c${i}` });
        processor.onEnd(query);
      }
    });
    const statements = activity.statements();
    assert.equal(statements.length, 1000);
    assert.equal(activity.statementsOmitted, 100);
    assert.deepEqual([statements[0]!.text, statements[999]!.text], ['SELECT c0', 'SELECT c999']);
  });

  it('reads any other span when asked, and times a span the SDK gives no duration from its start', () => {
    const scope = new RequestScope(performance.now());
    const activity = watchActivity(scope);
    const processor = vigilSpanProcessor();
    const handler = traceSpan('handler', {});
    const bare: TraceSpan = {
      name: 'query',
      attributes: { 'db.system': 'postgresql', 'db.statement': 'SELECT one' },
      spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'ffffffffffffffff' }),
    };
    runInScope(scope, () => {
      processor.onStart(handler, undefined);
      processor.onStart(bare, undefined);
      processor.onEnd(bare);
    });
    // A filed statement (a query channel's) that began before them is listed first.
    activity.addStatement({
      text: 'SELECT 0',
      system: 'mysql',
      start: -1,
      duration: 1,
      rows: null,
      site: null,
      error: false,
    });
    Object.assign(handler, { ended: true, duration: [0, 4_000_000], status: { code: 2 } });
    processor.onEnd(handler);
    assert.deepEqual(
      activity.lateSpans().map(({ name, duration, error }) => [name, duration, error]),
      [
        ['handler', 4, true],
        ['SELECT one', activity.statements()[1]!.duration, false],
      ],
    );
    assert.deepEqual(
      activity.statements().map(({ text }) => text),
      ['SELECT 0', 'SELECT one'],
    );
    assert.ok(activity.statements()[1]!.duration! >= 0);
  });
});

/** An OpenTelemetry context holding `span`, read as `trace.getSpan` reads it. */
const contextOf = (span: object) => ({
  getValue: (key: symbol) => (key === Symbol.for('OpenTelemetry Context Key SPAN') ? span : undefined),
});

/** Runs `fn` with `span` active in a stand-in for OpenTelemetry's global context manager. */
function whileActive<T>(span: object, fn: () => T): T {
  const key = Symbol.for('opentelemetry.js.api.1');
  const registry = globalThis as { [key]?: unknown };
  const before = registry[key];
  registry[key] = { version: '1.9.0', context: { active: () => contextOf(span) } };
  try {
    return fn();
  } finally {
    registry[key] = before;
  }
}

const texts = (activity: ReturnType<typeof watchActivity>) => activity.statements().map(({ text }) => text);

describe("vigilSpanProcessor files a span under its parent span's request, whoever's code starts it", () => {
  it("files a child of a request's span there, when another request's code starts it", () => {
    const processor = vigilSpanProcessor();
    const [first, second] = [new RequestScope(0), new RequestScope(0)];
    const [firstActivity, secondActivity] = [watchActivity(first), watchActivity(second)];
    const connect = traceSpan('pg-pool.connect', { 'db.system': 'postgresql' });
    runInScope(second, () => processor.onStart(connect, undefined));
    // pg's pool runs the second request's query from the first one's release().
    const query = traceSpan('pg.query', { ...QUERY, 'db.statement': 'SELECT two' });
    runInScope(first, () => {
      processor.onStart(query, contextOf(connect));
      processor.onEnd(query);
    });
    assert.deepEqual([texts(firstActivity), texts(secondActivity)], [[], ['SELECT two']]);
    assert.deepEqual(
      secondActivity.lateSpans().map(({ name, depth }) => [name, depth]),
      [
        ['pg-pool.connect', 0],
        ['SELECT two', 0],
      ],
    );
  });

  it('files a child of the span active when a request came in (a server span) under that request', () => {
    const processor = vigilSpanProcessor();
    const server = { name: 'GET /orders' };
    const second = new RequestScope(0);
    const secondActivity = whileActive(server, () => watchActivity(second));
    const firstActivity = watchActivity(new RequestScope(0));
    const query = traceSpan('pg.query', QUERY);
    runInScope(firstActivity.scope, () => {
      processor.onStart(query, contextOf(server));
      processor.onEnd(query);
    });
    assert.deepEqual([texts(firstActivity), texts(secondActivity)], [[], ['SELECT one']]);
  });

  it("files a span whose parent was active when two requests came in under the running request's", () => {
    const processor = vigilSpanProcessor();
    // Started around the server: active in every request, the parent of their spans.
    const around = { name: 'boot' };
    const [first, second] = whileActive(around, () => [
      watchActivity(new RequestScope(0)),
      watchActivity(new RequestScope(0)),
    ]);
    for (const [activity, text] of [
      [second, 'SELECT two'],
      [first, 'SELECT one'],
    ] as const)
      runInScope(activity.scope, () => {
        const query = traceSpan('pg.query', { ...QUERY, 'db.statement': text });
        processor.onStart(query, contextOf(around));
        processor.onEnd(query);
      });
    assert.deepEqual([texts(first), texts(second)], [['SELECT one'], ['SELECT two']]);
  });

  it("files no child of a span whose request was reported, in whatever request's code it starts", () => {
    const processor = vigilSpanProcessor();
    const [reported, running] = [new RequestScope(0), new RequestScope(0)];
    watchActivity(reported);
    const runningActivity = watchActivity(running);
    const parent = traceSpan('handler', {});
    runInScope(reported, () => processor.onStart(parent, undefined));
    reported.close();
    const late = traceSpan('pg.query', QUERY);
    runInScope(running, () => {
      processor.onStart(late, contextOf(parent));
      processor.onEnd(late);
    });
    assert.deepEqual([texts(runningActivity), runningActivity.lateSpans()], [[], []]);
  });
});

describe("vigilPgResponseHook puts pg's rowCount on the span", () => {
  const rowsOf = (response: { data?: unknown }) => {
    const attributes: Record<string, number> = {};
    vigilPgResponseHook({ setAttribute: (key, value) => (attributes[key] = value) }, response);
    return attributes['db.response.returned_rows'];
  };

  it('reads rowCount, then the rows returned, and nothing from a result of another shape', () => {
    assert.equal(rowsOf({ data: { rowCount: 7, rows: [] } }), 7);
    assert.equal(rowsOf({ data: { rowCount: null, rows: [1, 2] } }), 2);
    for (const data of [undefined, null, 'text', [{ rowCount: 1 }], { rowCount: -1 }, { rowCount: 1.5 }])
      assert.equal(rowsOf({ data }), undefined, JSON.stringify(data));
  });
});
