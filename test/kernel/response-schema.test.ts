/**
 * Response schemas on routes API routes, over real sockets: the answer holds only what the
 * schema declares, in this process or an isolated worker, and errors keep their own bodies.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/schema-routes.ts', APP_ENV: 'prod' }));

describe('a routes API route with a response schema', () => {
  it('answers only the properties its schema declares', async () => {
    const answer = await ask(service(), { path: '/users/7' });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(answer.body), { id: 7, name: 'Ada' });
  });

  it('does the same for an isolated route', async () => {
    const answer = await ask(service(), { path: '/isolated-users/7' });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { id: 7, name: 'Ada' });
  });

  it('answers 500 through the error pipeline when the value lacks a required property', async () => {
    const answer = await ask(service(), { path: '/incomplete', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 500);
    assert.doesNotMatch(answer.body, /"id":7/);
  });

  it("keeps an error's own body, whatever schema the route gives its status", async () => {
    const answer = await ask(service(), { path: '/missing-user', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 404);
    assert.doesNotMatch(answer.body, /"name"/);
    assert.match(answer.body, /Not Found/);
  });
});
