/** CONTRACT section 5 and issue 3: what each collector puts in a report. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { ExceptionSection } from '../../src/profiler/collectors/exception.js';
import type { LogsSection } from '../../src/profiler/collectors/logs.js';
import type { MemorySection } from '../../src/profiler/collectors/memory.js';
import type { PerformanceSection } from '../../src/profiler/collectors/performance.js';
import type { RequestSection } from '../../src/profiler/collectors/request.js';
import type { ResponseSection } from '../../src/profiler/collectors/response.js';
import type { RoutingSection } from '../../src/profiler/collectors/routing.js';
import type { Collector } from '../../src/profiler/model/request-profile.js';
import profiledRoutes, { kept, routesModule } from '../fixtures/profiled-routes.js';
import { collectGarbage } from '../support/gc.js';
import { startKernel, type TestKernel } from '../support/kernel.js';

const agentCollector: Collector = {
  name: 'agent',
  collect: ({ request }) => ({ userAgent: request.headers['user-agent'] ?? null }),
};
const brokenCollector: Collector = {
  name: 'broken',
  collect: () => {
    throw new Error('collector bug');
  },
};

let kernel: TestKernel;
before(async () => {
  kernel = await startKernel(
    { PROFILER_REDACT: 'x-api-key,token', ISOLATED_WORKERS: '1' },
    { routes: [profiledRoutes], routesModule, collectors: [agentCollector, brokenCollector] },
  );
});
after(() => kernel.close());

async function profiled(options: InjectOptions) {
  const response = await kernel.app.inject(options);
  const token = String(response.headers['x-debug-token']);
  return { response, report: await kernel.report(token) };
}

const sectionOf = <T>(report: { collectors: Record<string, unknown> }, name: string) => report.collectors[name] as T;

describe('the request collector records method, URL, query, redacted headers, body size, client and protocol', () => {
  it('keeps what the client sent and redacts secrets, built-in and configured', async () => {
    const { report } = await profiled({
      method: 'POST',
      url: '/echo?token=abc&page=2&q=caf%C3%A9',
      headers: {
        authorization: 'Bearer t0p',
        cookie: 'sid=1',
        'x-api-key': 'k3y',
        'content-type': 'application/json',
        'user-agent': 'tester/1',
      },
      payload: '{"a":1}',
    });
    const request = sectionOf<RequestSection>(report, 'request');
    assert.equal(request.method, 'POST');
    assert.equal(request.url, 'http://localhost/echo?token=[redacted]&page=2&q=caf%C3%A9');
    assert.deepEqual(request.query, [
      { name: 'token', value: '[redacted]' },
      { name: 'page', value: '2' },
      { name: 'q', value: 'café' },
    ]);
    assert.equal(request.headers.authorization, '[redacted]');
    assert.equal(request.headers.cookie, '[redacted]');
    assert.equal(request.headers['x-api-key'], '[redacted]');
    assert.equal(request.headers['user-agent'], 'tester/1');
    assert.equal(request.bodySize, 7);
    assert.equal(request.ip, '127.0.0.1');
    assert.equal(request.protocol, 'HTTP/1.1');
    assert.equal(request.tls, null);
    assert.equal(report.url, request.url);
    assert.doesNotMatch(JSON.stringify(report), /t0p|k3y|sid=1/);
  });
});

describe('the response collector records status, redacted headers and size', () => {
  it('redacts set-cookie and reports the declared size', async () => {
    const { response, report } = await profiled({ url: '/cookie' });
    const section = sectionOf<ResponseSection>(report, 'response');
    assert.equal(section.status, 200);
    assert.equal(section.headers['set-cookie'], '[redacted]');
    assert.equal(section.size, Buffer.byteLength(response.body));
    assert.equal(section.headers['x-debug-token'], report.token);
    assert.equal(section.aborted, false);
  });
});

describe('the exception collector records class, message, code and the trace with source excerpts', () => {
  it("points at the handler's throw, with the excerpt around it", async () => {
    const { report } = await profiled({ url: '/fail' });
    const section = sectionOf<ExceptionSection>(report, 'exception');
    assert.equal(section.class, 'Error');
    assert.equal(section.message, 'database is down');
    assert.equal(section.code, 'VIGIL_ERR_INTERNAL');
    assert.equal(section.status, 500);
    assert.match(section.file!, /test\/fixtures\/failing-routes\.ts$/);
    const own = section.trace.find((frame) => frame.own)!;
    assert.equal(own.file, section.file);
    assert.ok(
      own.excerpt!.some(
        (line) => line.number === section.line && line.text.includes("throw new Error('database is down')"),
      ),
    );
    assert.ok(
      section.trace.some((frame) => !frame.own && frame.excerpt === null),
      'dependency frames carry no excerpt',
    );
  });

  it('adds no exception section when nothing was raised', async () => {
    const { report } = await profiled({ url: '/hello' });
    assert.equal(report.collectors.exception, undefined);
  });
});

describe('the routing collector records the route matched, or the closest routes and why they missed', () => {
  it('names the matched route and its parameters', async () => {
    const { report } = await profiled({ method: 'PUT', url: '/items/42' });
    const section = sectionOf<RoutingSection>(report, 'routing');
    assert.deepEqual(section.matched, { name: 'PUT /items/{id}', path: '/items/{id}', methods: ['PUT'] });
    assert.deepEqual(section.params, { id: '42' });
  });

  it('explains a 404 by a failed requirement', async () => {
    const { report } = await profiled({ method: 'PUT', url: '/items/abc' });
    const section = sectionOf<RoutingSection>(report, 'routing');
    assert.equal(section.matched, null);
    assert.deepEqual(section.allowedMethods, []);
    const miss = section.closest!.find((route) => route.path === '/items/{id}')!;
    assert.equal(miss.reason, 'parameter "id" = "abc" does not match the requirement \\d+');
  });

  it('lists the allowed methods of a 405', async () => {
    const { report } = await profiled({ method: 'DELETE', url: '/items' });
    const section = sectionOf<RoutingSection>(report, 'routing');
    assert.deepEqual(section.allowedMethods, ['GET', 'POST']);
    assert.equal(
      section.closest!.find((route) => route.path === '/items')!.reason,
      'the path matches but DELETE is not among GET, POST',
    );
  });

  it('records where a slash redirect went', async () => {
    const { report } = await profiled({ url: '/with-slash' });
    assert.equal(sectionOf<RoutingSection>(report, 'routing').redirectedTo, '/with-slash/');
  });
});

describe('the performance collector records the total and the time of each stage', () => {
  it('splits a matched request into routing, body, handler and sending', async () => {
    const { report } = await profiled({ url: '/wait-40ms' });
    const section = sectionOf<PerformanceSection>(report, 'performance');
    assert.deepEqual(Object.keys(section.stages), ['routing', 'body', 'handler', 'sending']);
    // The handler sleeps 40 ms: that time is the handler's, not another stage's.
    assert.ok(section.stages.handler! >= 35, `handler ${section.stages.handler} ms`);
    const sum = Object.values(section.stages).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - section.total!) < 0.01, `stages ${sum} vs total ${section.total}`);
    assert.equal(report.duration, section.total);
    const utilization = section.eventLoopUtilization;
    assert.equal(typeof utilization, 'number');
    assert.ok(utilization! >= 0 && utilization! <= 1, `event loop utilization ${utilization}`);
  });

  it('splits an unrouted request into routing, rendering and sending', async () => {
    const { report } = await profiled({ url: '/robots.txt' });
    assert.deepEqual(Object.keys(sectionOf<PerformanceSection>(report, 'performance').stages), [
      'routing',
      'rendering',
      'sending',
    ]);
  });
});

describe('the memory collector records heap and RSS at start and end', () => {
  it('sees the heap grow by what the handler kept', async () => {
    // Garbage left by earlier tests, collected during the request, would offset the growth.
    collectGarbage();
    const { report } = await profiled({ url: '/allocate' });
    kept.length = 0;
    const section = sectionOf<MemorySection>(report, 'memory');
    assert.ok(section.start!.rss > 0 && section.end.rss > 0);
    // 4 million numbers kept alive: at least 16 MB more heap at the end than at the start.
    assert.ok(section.heapDelta! > 16_000_000, `heap grew by ${section.heapDelta}`);
    assert.ok(section.peakRss >= section.end.rss);
  });
});

describe("the logs collector keeps the pino lines the request's logger wrote, and only those", () => {
  it('keeps written lines, not those below LOG_LEVEL, and never another request’s', async () => {
    const [first, second] = await Promise.all([
      profiled({ url: '/log?sku=A1&wait=30' }),
      profiled({ url: '/log?sku=B2&wait=0' }),
    ]);
    const lines = sectionOf<LogsSection>(first.report, 'logs').lines;
    assert.deepEqual(
      lines.map((line) => [line.level, line.message]),
      [
        ['warn', 'stock low for A1'],
        ['error', 'second line'],
      ],
    );
    assert.equal(lines[0]!.context.sku, 'A1');
    assert.deepEqual(
      sectionOf<LogsSection>(second.report, 'logs').lines.map((line) => line.message),
      ['stock low for B2', 'second line'],
    );
    // The lines still went to the log output.
    assert.ok(kernel.logLines.some((line) => line.includes('stock low for A1')));
  });

  it('keeps the error the pipeline logs for a 500', async () => {
    const { report } = await profiled({ url: '/fail' });
    const lines = sectionOf<LogsSection>(report, 'logs').lines;
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'error');
    assert.equal(lines[0]!.message, 'database is down');
  });
});

describe("an application's collector adds its own section", () => {
  it('stores what collect returns under its name', async () => {
    const { report } = await profiled({ url: '/hello', headers: { 'user-agent': 'probe/2' } });
    assert.deepEqual(report.collectors.agent, { userAgent: 'probe/2' });
  });

  it('costs a broken collector its own section only', async () => {
    const { response, report } = await profiled({ url: '/hello' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(report.collectors.broken, { collectorError: 'collector bug' });
    assert.ok(report.collectors.request);
  });
});
