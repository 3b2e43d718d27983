/** `/_profiler/latest`: the newest report, in HTML with its panels and in JSON. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/failing-routes.ts' }));

describe('/_profiler/latest opens the newest report', () => {
  it('is a 404 through the pipeline while no report is stored', async () => {
    const answer = await ask(service(), { path: '/_profiler/latest', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 404);
    assert.match(JSON.parse(answer.body).detail, /^No report is stored yet/);
  });

  it('shows the report of the request answered last, in HTML and in JSON, and never its own', async () => {
    await ask(service(), { path: '/hello' });
    const last = tokenOf(await ask(service(), { path: '/robots.txt' }));
    const page = await ask(service(), { path: '/_profiler/latest' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.ok(page.body.includes(last), 'the page is the newest report');
    const json = await ask(service(), { path: '/_profiler/latest', headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.equal(
      (JSON.parse(json.body) as { token: string }).token,
      last,
      'the profiler pages asked in between are not reports',
    );
  });

  it('opens the panel ?panel= names, and refuses one the report does not have', async () => {
    const last = tokenOf(await ask(service(), { path: '/hello?panel-test=1' }));
    const byToken = await ask(service(), { path: `/_profiler/${last}?panel=request` });
    const latest = await ask(service(), { path: '/_profiler/latest?panel=request' });
    assert.equal(latest.status, 200);
    assert.equal(latest.body, byToken.body, 'the same page as under its token');
    const unknown = await ask(service(), {
      path: '/_profiler/latest?panel=nope',
      headers: { accept: 'application/json' },
    });
    assert.equal(unknown.status, 400);
    assert.match(JSON.parse(unknown.body).detail, /^Unknown panel "nope"/);
  });
});
