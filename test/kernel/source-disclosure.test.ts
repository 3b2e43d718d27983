/**
 * Issue 10, item 1: a client cannot choose the frames of a trace, so it cannot make the
 * debug page, problem details or the stored report show a file of its choosing. Frames
 * come from the call sites that raised the error, never from the text of its message.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, ROOT, type Answer, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/hostile-routes.ts' }));

/** "\n    at /etc/passwd:1:1\n": what a V8 stack line naming /etc/passwd looks like. */
const FORGED_FRAME = '%0A%20%20%20%20at%20%2Fetc%2Fpasswd%3A1%3A1%0A';
const FIXTURE = join(ROOT, 'test/fixtures/hostile-routes.ts');
/** The first line of /etc/passwd on any Linux. */
const PASSWD_CONTENT = 'root:x:0';

function lineOf(text: string, nth = 1): number {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  let seen = 0;
  return lines.findIndex((line) => line.includes(text) && ++seen === nth) + 1;
}

interface Frame {
  file: string;
  line: number;
}

/** Every way the error of one request is shown: header, HTML page, problem details, text, stored report. */
async function everyView(
  path: string,
): Promise<{ site: string; html: Answer; problem: Answer; text: Answer; report: Answer }> {
  const html = await ask(service(), { path });
  const problem = await ask(service(), { path, headers: { accept: 'application/json' } });
  const text = await ask(service(), { path, headers: { accept: 'text/plain' } });
  const token = String(html.headers['x-debug-token']);
  const report = await ask(service(), { path: `/_profiler/${token}`, headers: { accept: 'application/json' } });
  assert.equal(report.status, 200, `the report of ${token} is stored`);
  return { site: String(html.headers['x-debug-exception-file']), html, problem, text, report };
}

function assertNoForgedFrame(views: Awaited<ReturnType<typeof everyView>>, raisedAt: number): void {
  const { site, html, problem, text, report } = views;
  assert.equal(html.status, 422);
  assert.equal(decodeURIComponent(site), `${FIXTURE}:${raisedAt}`, 'x-debug-exception-file is the throw');
  assert.ok(!site.includes('passwd'));

  for (const answer of [html, problem, text, report]) {
    assert.ok(!answer.body.includes(PASSWD_CONTENT), 'no content of /etc/passwd');
  }
  // The message itself is the client's text and is shown (escaped): only frames are checked.
  assert.ok(!html.body.includes('<span>/etc/passwd:1</span>'), 'no /etc/passwd frame on the page');

  const exception = JSON.parse(problem.body).exception as Frame & { trace: Frame[] };
  assert.equal(exception.file, FIXTURE);
  assert.equal(exception.line, raisedAt);
  assert.ok(
    exception.trace.every((frame) => frame.file !== '/etc/passwd'),
    'no /etc/passwd frame in problem details',
  );

  assert.ok(!text.body.includes('(/etc/passwd:1)'), 'no /etc/passwd frame in the text trace');

  const stored = JSON.parse(report.body).collectors.exception as Frame & { trace: Array<Frame & { excerpt: unknown }> };
  assert.equal(stored.file, FIXTURE);
  assert.equal(stored.line, raisedAt);
  assert.ok(
    stored.trace.every((frame) => frame.file !== '/etc/passwd'),
    'no /etc/passwd frame in the stored report',
  );
}

describe('frames come from real call sites, never from the message', () => {
  it("keeps a forged frame in an isolated route's message out of every view", async () => {
    const views = await everyView(`/check?v=${FORGED_FRAME}`);
    assertNoForgedFrame(views, lineOf('throw new HttpError(422', 1));
    // The real frame still has its excerpt: the worker's frames are structured, not dropped.
    assert.ok(
      views.html.body.includes('throw new HttpError(422, `Invalid value: ${String(query.v)}`'),
      'the excerpt of the raising line',
    );
    const stored = JSON.parse(views.report.body).collectors.exception.trace as Array<
      Frame & { excerpt: Array<{ number: number }> | null }
    >;
    assert.ok(stored[0]!.excerpt?.some((line) => line.number === stored[0]!.line));
  });

  it('keeps it out for an in-process route', async () => {
    assertNoForgedFrame(await everyView(`/check-here?v=${FORGED_FRAME}`), lineOf('throw new HttpError(422', 2));
  });

  it('keeps it out for an in-process route that throws a frozen error', async () => {
    assertNoForgedFrame(
      await everyView(`/check-frozen?v=${FORGED_FRAME}`),
      lineOf('throw Object.freeze(new HttpError(422'),
    );
  });

  it('still answers other requests', async () => {
    assert.equal((await ask(service(), { path: '/hello' })).body, 'hello');
  });
});
