/**
 * Issue 16, step 3: the kernel's 404 and 405 go from the unmatched hook straight to the
 * error pipeline, and their debug pages come from a template after the first one of a
 * throw path. Over the socket, a templated page is the page the renderer gave the first
 * time, byte for byte, but for its token; its length is the length sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/hostile-routes.ts' }));

/** The page with its token taken out where the page shows it (its report link): the only part two answers to one request may differ in. */
function withoutToken(answer: Answer): string {
  const token = tokenOf(answer);
  return answer.body
    .replaceAll(`/_profiler/${token}"`, '/_profiler/<token>"')
    .replaceAll(`debug report ${token}<`, 'debug report <token><');
}

function assertSentWhole(answer: Answer): void {
  assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body));
  assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
}

describe('the debug pages of the unmatched outcome', () => {
  it('are the same page from the template as from the renderer, with markup and other scripts in the request', async () => {
    const hostile = {
      path: `/<script>alert('x')</script>/caf%C3%A9/%F0%9F%98%80?a="b"&c=<d>`,
      headers: { accept: 'text/html', referer: `https://x.example/"><img src=x onerror=alert(1)>` },
    };
    const first = await ask(service(), hostile);
    await ask(service(), { path: '/another-path' });
    const templated = await ask(service(), hostile);
    assert.equal(first.status, 404);
    assert.equal(templated.status, 404);
    assert.notEqual(tokenOf(first), tokenOf(templated));
    assert.equal(withoutToken(templated), withoutToken(first));
    assert.ok(!templated.body.includes('<script>alert'), 'the path is escaped');
    assert.ok(templated.body.includes(`/_profiler/${tokenOf(templated)}`), 'the page links its own report');
    assertSentWhole(first);
    assertSentWhole(templated);
  });

  it('keeps the 405 page apart from the 404 page', async () => {
    const notAllowed = { method: 'DELETE', path: '/echo-header?x=<y>', headers: { accept: 'text/html' } };
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await ask(service(), notAllowed));
    for (const answer of answers) {
      assert.equal(answer.status, 405);
      assertSentWhole(answer);
      assert.equal(withoutToken(answer), withoutToken(answers[0]!));
    }
    assert.match(answers[2]!.body, /Error 405 Method Not Allowed/);
  });
});
