/** Issue 16, step 1: reports store facts; the routing explanations are derived when a report is read. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RoutingSection } from '../../src/profiler/collectors/routing.js';
import type { Report } from '../../src/profiler/model/report.js';
import { encodeReport } from '../../src/profiler/model/report-encoding.js';
import type { ReportStore } from '../../src/profiler/storage/report-store.js';
import profiledRoutes, { routesModule } from '../fixtures/profiled-routes.js';
import { startKernel, type TestKernel } from '../support/kernel.js';
import { openStoreOf } from '../support/stores.js';

let kernel: TestKernel;
let raw: ReportStore;
before(async () => {
  kernel = await startKernel({ ISOLATED_WORKERS: '1' }, { routes: [profiledRoutes], routesModule });
  raw = await openStoreOf(kernel.varDir);
});
after(async () => {
  await raw.close();
  await kernel.close();
});

const routingOf = (report: Report | undefined) => report!.collectors.routing as RoutingSection;

async function unmatched(method: 'PUT' | 'DELETE', url: string): Promise<string> {
  const response = await kernel.app.inject({ method, url });
  await kernel.profiler!.writer.flush();
  return String(response.headers['x-debug-token']);
}

describe('an unmatched request is stored as facts, explained when its report is read', () => {
  it('stores the path and the route table version, not the closest routes nor the allowed methods', async () => {
    const token = await unmatched('PUT', '/items/abc');
    const stored = routingOf(await raw.read(token));
    assert.equal(stored.path, '/items/abc');
    assert.equal(stored.matched, null);
    assert.match(stored.routeTable ?? '', /^[0-9a-f]{12}$/);
    assert.equal(stored.closest, undefined);
    assert.equal(stored.allowedMethods, undefined);
  });

  it('serves the JSON form with the closest routes derived from the current routes, unchanged', async () => {
    const token = await unmatched('DELETE', '/items');
    const page = await kernel.app.inject({ url: `/_profiler/${token}`, headers: { accept: 'application/json' } });
    const routing = routingOf(JSON.parse(page.body) as Report);
    assert.deepEqual(routing.allowedMethods, ['GET', 'POST']);
    assert.equal(
      routing.closest!.find((route) => route.path === '/items')!.reason,
      'the path matches but DELETE is not among GET, POST',
    );
    assert.equal(routing.routeTableChanged, undefined);
  });

  it('says on the panel that the routes changed when the report names another route table', async () => {
    const [token] = await raw.leaseTokens(1);
    const report: Report = {
      token: token!,
      time: Date.now(),
      method: 'PUT',
      url: 'http://localhost/items/abc',
      status: 404,
      ip: '127.0.0.1',
      duration: 1,
      collectors: {
        routing: {
          path: '/items/abc',
          matched: null,
          routeTable: '000000000000',
          redirectedTo: null,
        } satisfies RoutingSection,
      },
    };
    await raw.write([encodeReport(report)]);
    const page = await kernel.app.inject({
      url: `/_profiler/${token}?panel=routing`,
      headers: { accept: 'text/html' },
    });
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /id="route-table-changed"[^>]*>The routes changed since this request \(route table 000000000000\)/,
    );
    assert.match(page.body, /parameter &quot;id&quot; = &quot;abc&quot; does not match the requirement/);
  });
});
