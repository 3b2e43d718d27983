/**
 * Issue 26, item 1: a path that fails to match a route with several parameters in one
 * segment is decided in time linear in its length, so an unmatched request never holds
 * up the others. The application runs in a process of its own, in production mode.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { builtFile } from '../support/kernel-build.js';
import { ROOT } from '../support/root.js';
import { ask } from '../support/service.js';

let child: ChildProcess;
let service: { url: string; ca: undefined };

before(async () => {
  child = spawn(process.execPath, ['--enable-source-maps', builtFile('test/fixtures/route-shapes-app.ts')!], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the application exited with ${code}:\n${output}`)));
  });
  service = { url, ca: undefined };
});
// A frozen event loop never runs a SIGTERM handler.
after(() => child.kill('SIGKILL'));

/** A bound on where the work runs, not a speed target: the unfixed matcher took seconds. */
const PROMPT_MS = 2_000;
const DASHES = '-'.repeat(6_000);

async function timed(method: string, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const answer = await ask(service, { method, path, timeoutMs: 20_000 });
  return { status: answer.status, ms: performance.now() - started };
}

describe('an unmatched path is decided in time linear in its length, whatever the route shapes', () => {
  for (const [kind, prefix] of [
    ['a routes API route /date/{y}-{m}-{d}', '/date/'],
    ['a native route /d/:y-:m-:d', '/d/'],
  ] as const) {
    it(`answers a POST of thousands of dashes against ${kind} promptly, without holding up /hello`, async () => {
      const attack = timed('POST', `${prefix}${DASHES}/`);
      await sleep(50);
      const hello = await timed('GET', '/hello');
      const answered = await attack;
      assert.equal(answered.status, 404);
      assert.equal(hello.status, 200);
      assert.ok(answered.ms < PROMPT_MS, `the attack took ${Math.round(answered.ms)} ms`);
      assert.ok(hello.ms < PROMPT_MS, `/hello waited ${Math.round(hello.ms)} ms`);
    });
  }

  it('still tells a 405 from a 404 on such routes', async () => {
    assert.equal((await timed('POST', '/date/2024-01-02')).status, 405);
    assert.equal((await timed('POST', '/d/2024-01-02')).status, 405);
    assert.equal((await timed('POST', '/date/2024-01')).status, 404);
  });
});
