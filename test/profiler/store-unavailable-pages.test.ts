/**
 * While the report store cannot be reached, every profiler page answers 503 with
 * Retry-After through the error pipeline, never a 500. The store here is a PostgreSQL
 * address where nothing listens: unreachable from the start, as a server that is down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';

let service: Service;
before(async () => {
  service = await startInProcess({
    ROUTES: 'examples/demo-routes.ts',
    PROFILER_DSN: 'postgres://vigil:s3cret@127.0.0.1:1/vigil',
  });
});
after(() => service?.stop());

const PAGES = ['/_profiler', '/_profiler/search?url=hello', '/_profiler/latest', '/_profiler/a1b2c3'];

describe('every profiler page answers 503 with Retry-After while the report store is unavailable', () => {
  for (const path of PAGES) {
    it(`answers ${path} 503, in JSON and in HTML`, async () => {
      await ask(service, { path: '/hello' });
      const json = await ask(service, { path, headers: { accept: 'application/json' } });
      assert.equal(json.status, 503, `${path}: ${json.body.slice(0, 300)}`);
      assert.equal(json.headers['retry-after'], '5');
      assert.match(
        (JSON.parse(json.body) as { detail: string }).detail,
        /^Report store unavailable: postgres:\/\/vigil@127\.0\.0\.1:1\/vigil: /,
      );
      const html = await ask(service, { path });
      assert.equal(html.status, 503, path);
      assert.match(html.body, /VIGIL_ERR_REPORT_STORE_UNAVAILABLE/);
      assert.ok(!html.body.includes('s3cret') && !json.body.includes('s3cret'), 'the password is not shown');
    });
  }
});
