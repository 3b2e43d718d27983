/**
 * Issue 43, item 4: vigil beside the team's own exporter, as docs/profiler.md writes it.
 * NodeSDK ignores `traceExporter` once `spanProcessors` is given, so the recipe lists both
 * processors: the team's exporter in a `BatchSpanProcessor`, and `vigilSpanProcessor()`. The
 * same list builds a `NodeTracerProvider`, which this test does (NodeSDK builds one from it).
 * An in-memory exporter stands for the team's collector: it and vigil's reports get every
 * span of requests made over a real socket, and the exporter's spans are as the SDK made them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { context, trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, vigilSpanProcessor } from '../../src/index.js';
import type { Report } from '../../src/profiler/model/report.js';

const REQUESTS = 3;
const SPANS = ['load orders', 'pg.query:SELECT', 'render'];

// The recipe: both processors in `spanProcessors`.
const teamExporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  spanProcessors: [new BatchSpanProcessor(teamExporter), vigilSpanProcessor()],
});
const tracer = provider.getTracer('orders');

let app: FastifyInstance;
let url: string;

before(async () => {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-otel-')) });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get<{ Params: { n: string } }>('/orders/:n', async (request) => {
    const parent = tracer.startSpan(SPANS[0]!, { attributes: { 'order.request': request.params.n } });
    const within = trace.setSpan(context.active(), parent);
    const query = tracer.startSpan(
      SPANS[1]!,
      { attributes: { 'db.system': 'postgresql', 'db.statement': 'SELECT * FROM orders WHERE id = 42' } },
      within,
    );
    await new Promise((resolve) => setImmediate(resolve));
    query.end();
    tracer.startSpan(SPANS[2]!, {}, within).end();
    parent.end();
    return 'ordered';
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app?.close();
  await provider.shutdown();
});

async function reportOf(token: string): Promise<Report> {
  const profiler = app.vigil.profiler!;
  await profiler.writer.flush();
  const report = await profiler.store.read(token);
  assert.ok(report, `a report under ${token}`);
  return report;
}

describe("OpenTelemetry: vigil's processor beside the team's exporter, both in spanProcessors", () => {
  it('gives every span to the exporter and to the report of its request', async () => {
    const tokens: string[] = [];
    for (let n = 0; n < REQUESTS; n++) {
      const answer = await fetch(`${url}/orders/${n}`);
      assert.equal(await answer.text(), 'ordered');
      tokens.push(answer.headers.get('x-debug-token')!);
    }
    await provider.forceFlush();
    const exported = teamExporter.getFinishedSpans();
    assert.deepEqual(
      exported.map((span) => span.name).sort(),
      Array.from({ length: REQUESTS }, () => SPANS)
        .flat()
        .sort(),
      "the team's exporter gets every span",
    );
    const query = exported.find((span) => span.name === SPANS[1])!;
    assert.equal(query.attributes['db.statement'], 'SELECT * FROM orders WHERE id = 42', 'as the SDK made it');
    for (const token of tokens) {
      const report = await reportOf(token);
      const performance = report.collectors.performance as { spans?: Array<{ name: string }>; traceId?: string };
      // The database span is drawn under its statement's text.
      const drawn = [SPANS[0], 'SELECT * FROM orders WHERE id = ?', SPANS[2]];
      assert.deepEqual(
        performance.spans?.map((span) => span.name).filter((name) => drawn.includes(name)),
        drawn,
        'the report draws every span of its request',
      );
      const database = report.collectors.database as { texts: string[] };
      assert.deepEqual(database.texts, ['SELECT * FROM orders WHERE id = ?']);
    }
    // Each report names its request's trace, which the exporter has.
    const traces = new Set(exported.map((span) => span.spanContext().traceId));
    for (const token of tokens) {
      const { traceId } = (await reportOf(token)).collectors.performance as { traceId?: string };
      assert.ok(traceId !== undefined && traces.has(traceId), `trace ${traceId} exported`);
    }
  });
});
