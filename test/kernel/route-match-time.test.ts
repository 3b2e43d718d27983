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
import { startTogether } from '../support/start-together.js';

interface App {
  child: ChildProcess;
  service: { url: string; ca: undefined };
}

/** The application of test/fixtures/route-shapes-app.ts in a process of its own. */
async function startApp(mode: 'prod' | 'dev'): Promise<App> {
  const child = spawn(process.execPath, ['--enable-source-maps', builtFile('test/fixtures/route-shapes-app.ts')!], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', APP_ENV: mode },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  return { child, service: { url, ca: undefined } };
}

let production: App;
let debug: App;
let service: App['service'];
before(async () => {
  [production, debug] = await startTogether<[App, App]>([startApp('prod'), startApp('dev')], (started) =>
    started.child.kill('SIGKILL'),
  );
  service = production.service;
});
// A frozen event loop never runs a SIGTERM handler.
after(() => {
  production?.child.kill('SIGKILL');
  debug?.child.kill('SIGKILL');
});

/** A bound on where the work runs, not a speed target: the unfixed matcher took seconds. */
const PROMPT_MS = 2_000;
const DASHES = '-'.repeat(6_000);

async function timed(
  method: string,
  path: string,
  to = service,
): Promise<{ status: number; ms: number; token: string | undefined }> {
  const started = performance.now();
  const answer = await ask(to, { method, path, timeoutMs: 20_000, headers: { accept: 'text/html' } });
  return {
    status: answer.status,
    ms: performance.now() - started,
    token: answer.headers['x-debug-token'] as string | undefined,
  };
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

describe('the report of such a request opens as promptly (the same routes are matched again)', () => {
  it('answers the attack in debug mode, then shows its report page, each in time', async () => {
    const answered = await timed('POST', `/d/${DASHES}/`, debug.service);
    assert.equal(answered.status, 404);
    assert.ok(answered.ms < PROMPT_MS, `the attack took ${Math.round(answered.ms)} ms`);
    assert.ok(answered.token, 'a debug answer names its report');
    let page = { status: 0, ms: 0 };
    // The report is written after the answer: asked again until it is there.
    for (let tries = 0; tries < 50 && page.status !== 200; tries++) {
      await sleep(100);
      page = await timed('GET', `/_profiler/${answered.token}`, debug.service);
    }
    assert.equal(page.status, 200);
    assert.ok(page.ms < PROMPT_MS, `the report page took ${Math.round(page.ms)} ms`);
  });
});
