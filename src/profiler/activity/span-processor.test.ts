import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SPANS, RequestScope, runInScope } from '../../http/request-scope.js';
import { watchActivity } from './request-activity.js';
import { vigilSpanProcessor, type TraceSpan } from './span-processor.js';

let ids = 0;

/** A span as the SDK hands it over: an object of its own, with a context and attributes. */
function traceSpan(name: string, attributes: Record<string, unknown>, parentId?: string): TraceSpan {
  const context = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: (++ids).toString(16).padStart(16, '0') };
  return {
    name,
    attributes,
    parentSpanContext: parentId === undefined ? undefined : { spanId: parentId },
    spanContext: () => context,
    status: { code: 0 },
  };
}

const QUERY = { 'db.system': 'postgresql', 'db.statement': 'SELECT 1' };

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
    assert.equal(activity.statements.length, 2);
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
    assert.deepEqual(
      scope.spans.slice(0, 2).map(({ name, depth }) => [name, depth]),
      [
        ['handler', 0],
        ['pg.query', 1],
      ],
    );
    assert.equal(scope.spans.length, MAX_SPANS);
    assert.equal(scope.spansOmitted, 52);
    // Statements have a bound of their own: every query past the waterfall's is one.
    assert.equal(activity.statements.length, MAX_SPANS + 51);
  });
});
