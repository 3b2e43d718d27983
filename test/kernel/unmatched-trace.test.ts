/** Issue 16, step 2: the unmatched outcome's trace is reused along its fixed path, and still names the real frames. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExceptionSection } from '../../src/profiler/collectors/exception.js';
import profiledRoutes, { routesModule } from '../fixtures/profiled-routes.js';
import { exceptionFile, lineOf } from '../support/answers.js';
import { startKernel, type TestKernel } from '../support/kernel.js';

const UNMATCHED = join(process.cwd(), 'src/routing/unmatched.ts');
const CORS_HOOK = join(process.cwd(), 'src/cors/cors-hook.ts');

let kernel: TestKernel;
before(async () => {
  kernel = await startKernel(
    { ISOLATED_WORKERS: '1', CORS_ALLOW_ORIGIN: 'https://app.example' },
    { routes: [profiledRoutes], routesModule },
  );
});
after(() => kernel.close());

async function traceOf(method: 'GET' | 'PUT' | 'DELETE', url: string, headers: Record<string, string> = {}) {
  const answer = await kernel.app.inject({ method, url, headers: { accept: 'application/json', ...headers } });
  const report = await kernel.report(String(answer.headers['x-debug-token']));
  return {
    status: answer.statusCode,
    raisedAt: exceptionFile(answer),
    trace: (report.collectors.exception as ExceptionSection).trace,
  };
}

describe('the unmatched outcome names the raise site and frames of its own request', () => {
  it('names the 405 raise site after a 404, and the 404 raise site after a 405', async () => {
    const notFound = { file: UNMATCHED, line: lineOf(UNMATCHED, 'return new NotFoundHttpError(') };
    const notAllowed = { file: UNMATCHED, line: lineOf(UNMATCHED, 'new MethodNotAllowedHttpError(allowed, message') };
    for (const [method, url, status, site] of [
      ['PUT', '/items/abc', 404, notFound],
      ['DELETE', '/items', 405, notAllowed],
      ['PUT', '/items/abc', 404, notFound],
      ['DELETE', '/items', 405, notAllowed],
    ] as const) {
      const { status: answered, raisedAt, trace } = await traceOf(method, url);
      assert.equal(answered, status);
      assert.deepEqual(raisedAt, site);
      assert.deepEqual([trace[0]!.file, trace[0]!.line], [site.file, site.line]);
    }
  });

  it('names the line of the CORS hook a request went on from, with an Origin or without', async () => {
    const line = lineOf(CORS_HOOK, '// One way on') + 1;
    const cases: Array<Record<string, string>> = [
      {},
      { origin: 'https://app.example' },
      { origin: 'https://elsewhere.example' },
    ];
    for (const headers of cases) {
      const { trace } = await traceOf('GET', '/nowhere', headers);
      const cors = trace.find((frame) => frame.file === CORS_HOOK);
      assert.equal(cors?.line, line, JSON.stringify(headers));
    }
  });

  it('shows the hooks before, once Error.stackTraceLimit reaches them', async () => {
    await traceOf('GET', '/nowhere');
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    try {
      const { trace } = await traceOf('GET', '/nowhere');
      assert.ok(trace.length > 10, `${trace.length} frames`);
      assert.ok(
        trace.some((frame) => frame.function === 'requestHostCheck'),
        trace.map((frame) => frame.function).join(', '),
      );
    } finally {
      Error.stackTraceLimit = limit;
    }
  });
});
