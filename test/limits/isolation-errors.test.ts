/**
 * An isolated handler's error is answered as the same error thrown in this process would be:
 * an HttpError's status and headers are the answer's; another error's headers never are
 * (an upstream's `set-cookie` must not reach the client), and its status only as the error
 * pipeline reads any error's `statusCode`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/limit-routes.ts' }));

describe('an isolated handler forwards status and headers only as an in-process one does', () => {
  it("drops a thrown non-HttpError's `status` and headers, in this process and isolated", async () => {
    const here = await ask(service(), { path: '/upstream-failure' });
    const isolated = await ask(service(), { path: '/isolated-upstream-failure' });
    for (const answer of [here, isolated]) {
      assert.equal(answer.headers['set-cookie'], undefined);
      assert.equal(answer.headers['x-upstream'], undefined);
    }
    assert.equal(here.status, 500);
    assert.equal(isolated.status, 500);
  });

  it("keeps a thrown HttpError's status and headers, in this process and isolated", async () => {
    for (const path of ['/conflict', '/isolated-conflict']) {
      const answer = await ask(service(), { path });
      assert.equal(answer.status, 409, path);
      assert.equal(answer.headers['x-conflict'], 'yes', path);
    }
  });
});
