/**
 * Issue 43, item 4, as teams install it: OpenTelemetry's `NodeSDK` (and a tracer provider
 * the application builds itself) with the team's exporter beside `vigilSpanProcessor()`, on
 * SDK 2 and SDK 3, each installed from npm beside the packed package. An in-memory exporter
 * stands for the team's collector: it and vigil's reports must both get every span.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installedVersion, projectWith, runInProject } from '../support/package-build.js';

const SPANS = ['load orders', 'pg.query:SELECT', 'render'];
/** The same spans on a report's waterfall, where a statement's span is named by its text. */
const DRAWN = ['load orders', 'SELECT * FROM orders WHERE id = ?', 'render'];
const REQUESTS = 3;

interface Sdk {
  name: string;
  packages: string[];
  /** Where `BatchSpanProcessor`, `InMemorySpanExporter` and a provider class come from. */
  tracePackage: string;
  providerClass: string;
  /** The team's exporter in a batch processor, as this SDK builds one. */
  batchOf: (exporter: string) => string;
  major: RegExp;
}

const SDK_2: Sdk = {
  name: 'otel-sdk2',
  packages: [
    '@opentelemetry/sdk-node@0.223.0',
    '@opentelemetry/sdk-trace-base@2.12.0',
    '@opentelemetry/sdk-trace-node@2.12.0',
  ],
  tracePackage: '@opentelemetry/sdk-trace-node',
  providerClass: 'NodeTracerProvider',
  batchOf: (exporter) => `new BatchSpanProcessor(${exporter})`,
  major: /^2\./,
};
const SDK_3: Sdk = {
  name: 'otel-sdk3',
  packages: ['@opentelemetry/sdk-node@0.301.0', '@opentelemetry/sdk-trace@3.1.0', '@opentelemetry/api@1.10.0'],
  tracePackage: '@opentelemetry/sdk-trace',
  providerClass: 'TracerProvider',
  // SDK 3 takes its options as one object.
  batchOf: (exporter) => `new BatchSpanProcessor({ exporter: ${exporter} })`,
  major: /^3\./,
};

/** The application: `setUp` is the team's tracing set-up, with vigil's processor beside its exporter. */
function application(sdk: Sdk, setUp: 'NodeSDK' | 'provider'): string {
  const tracing =
    setUp === 'NodeSDK'
      ? `const sdk = new NodeSDK({ spanProcessors: [${sdk.batchOf('exporter')}, vigilSpanProcessor()] });
sdk.start();
const flush = () => trace.getTracerProvider().getDelegate().forceFlush();
const stop = () => sdk.shutdown();`
      : `const provider = new ${sdk.providerClass}({ spanProcessors: [${sdk.batchOf('exporter')}, vigilSpanProcessor()] });
trace.setGlobalTracerProvider(provider);
const flush = () => provider.forceFlush();
const stop = () => provider.shutdown();`;
  return `import { context, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, InMemorySpanExporter, ${sdk.providerClass} } from '${sdk.tracePackage}';
import Fastify from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, vigilSpanProcessor } from 'fastify-vigil';

const exporter = new InMemorySpanExporter();
${tracing}
const SPANS = ${JSON.stringify(SPANS)};
const DRAWN = ${JSON.stringify(DRAWN)};
const config = loadConfig();
const app = Fastify(vigilFastifyOptions(config));
await app.register(vigil, { config, announceProfiler: false });
app.get('/orders/:n', async () => {
  const tracer = trace.getTracer('orders');
  const parent = tracer.startSpan(SPANS[0]);
  const within = trace.setSpan(context.active(), parent);
  const query = tracer.startSpan(SPANS[1], { attributes: { 'db.system': 'postgresql', 'db.statement': 'SELECT * FROM orders WHERE id = 42' } }, within);
  await new Promise((resolve) => setImmediate(resolve));
  query.end();
  tracer.startSpan(SPANS[2], {}, within).end();
  parent.end();
  return 'ordered';
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const reports = [];
for (let n = 0; n < ${REQUESTS}; n++) {
  const answer = await fetch(url + '/orders/' + n);
  await answer.text();
  const report = await app.vigil.report(answer);
  reports.push(report.performance.spans.map((span) => span.name).filter((name) => DRAWN.includes(name)));
}
await app.close();
await flush();
// Read before the shutdown, which empties an in-memory exporter.
const exported = exporter.getFinishedSpans().map((span) => span.name).sort();
await stop();
console.log('SEEN ' + JSON.stringify({ exported, reports }));
`;
}

for (const sdk of [SDK_2, SDK_3]) {
  describe(`OpenTelemetry SDK ${sdk.major.source.slice(1, 2)}, installed from npm beside the packed package`, () => {
    for (const setUp of ['NodeSDK', 'provider'] as const) {
      it(`${setUp === 'NodeSDK' ? 'NodeSDK' : `a ${sdk.providerClass} the application builds`}: the team's exporter and vigil's reports get every span`, async () => {
        const project = projectWith(sdk.name, sdk.packages);
        assert.match(installedVersion(project, sdk.tracePackage), sdk.major);
        const seen = await runInProject<{ exported: string[]; reports: string[][] }>(
          project,
          `${setUp}.mjs`,
          application(sdk, setUp),
          { LOG_LEVEL: 'silent' },
        );
        assert.deepEqual(
          seen.exported,
          Array.from({ length: REQUESTS }, () => SPANS)
            .flat()
            .sort(),
          "the team's exporter gets every span",
        );
        assert.deepEqual(
          seen.reports,
          Array.from({ length: REQUESTS }, () => DRAWN),
          'each report draws every span of its request',
        );
      });
    }
  });
}
