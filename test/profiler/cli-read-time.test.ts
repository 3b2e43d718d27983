/** Issue 16, step 1 on the command line: `profiler:show` derives an unmatched request's closest routes when it reads the report. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { RoutingSection } from '../../src/profiler/collectors/routing.js';
import { encoded, report } from '../support/reports.js';
import { ROOT } from '../support/service.js';
import { openStoreOf } from '../support/stores.js';

const ENV = { ROUTES: 'test/fixtures/profiled-routes.ts' };
let varDir: string;
let token: string;

function show(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin/vigil.js'), 'profiler:show', token, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', VAR_DIR: varDir, ...ENV },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

before(async () => {
  varDir = mkdtempSync(join(tmpdir(), 'vigil-cli-read-time-'));
  const store = await openStoreOf(varDir);
  [token] = (await store.leaseTokens(1)) as [string];
  const routing: RoutingSection = { path: '/items/abc', matched: null, routeTable: '000000000000', redirectedTo: null };
  await store.write(
    encoded([report(token, { method: 'PUT', url: 'https://localhost:8443/items/abc', collectors: { routing } })]),
  );
  await store.close();
});

describe('profiler:show explains a stored unmatched request against the routes ROUTES declares', () => {
  it('prints the closest routes and says the routes changed since the request', () => {
    const run = show();
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /closest: PUT \/items\/\{id\}: parameter "id" = "abc" does not match the requirement \\d\+/,
    );
    assert.match(run.stdout, /the routes changed since this request \(route table 000000000000\)/);
  });

  it('puts them in the JSON form too', () => {
    const run = show('--json');
    assert.equal(run.status, 0, run.stderr);
    const routing = (JSON.parse(run.stdout) as { collectors: { routing: RoutingSection } }).collectors.routing;
    assert.equal(routing.routeTableChanged, true);
    assert.ok(routing.closest!.some((miss) => miss.path === '/items/{id}'));
  });
});
