/** Logs for people at a terminal, JSON for everything else: decided by whether stdout is a TTY (a pseudo-terminal through `script`). */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { sharedCertificate } from '../support/certificate.js';
import { builtFile } from '../support/kernel-build.js';
import { ROOT } from '../support/root.js';
import { ask } from '../support/service.js';

interface Running {
  url: string;
  ca: string;
  output(): string;
  stop(): Promise<void>;
}

const running: Running[] = [];
after(() => Promise.all(running.map((service) => service.stop())));

/** The service from its build, with stdout a pipe, or a pseudo-terminal made by `script`. */
async function start(terminal: boolean, env: Record<string, string> = {}): Promise<Running> {
  const certificate = await sharedCertificate();
  const main = `${JSON.stringify(process.execPath)} --enable-source-maps ${JSON.stringify(builtFile('src/main.ts'))}`;
  const [command, args] = terminal
    ? ['script', ['-qfec', main, '/dev/null']]
    : [process.execPath, ['--enable-source-maps', builtFile('src/main.ts')!]];
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: 'localhost',
      PORT: '0',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-logs-')),
      ROUTES: builtFile('examples/demo-routes.ts')!,
      ISOLATED_WORKERS: '1',
      ...certificate,
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const service: Running = {
    url: '',
    ca: readFileSync(certificate.TLS_CERT, 'utf8'),
    output: () => output,
    stop: async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await exited;
    },
  };
  running.push(service);
  for (let waited = 0; waited < 30_000 && !/profiler: [^\r\n]*\r?\n/.test(output); waited += 20) await sleep(20);
  const url = /vigil listening on (\S+)/.exec(output)?.[1];
  assert.ok(url, output);
  service.url = url;
  return service;
}

/** Waits until the output holds `pattern`, or gives up and returns what it holds. */
async function outputOnceItHas(service: Running, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 5_000 && !pattern.test(service.output()); waited += 20) await sleep(20);
  return service.output();
}

describe('at a terminal in debug mode, lines are pretty and each request has an access line', () => {
  it('prints method, URL, status, time and the report link, and no JSON', async () => {
    const service = await start(true);
    const answer = await ask(service, { path: '/hello?x=1' });
    const link = String(answer.headers['x-debug-token-link']);
    const output = await outputOnceItHas(service, /GET \/hello\?x=1 200/);
    assert.match(output, new RegExp(`INFO.*: .*GET /hello\\?x=1 200 \\d+\\.\\d ms ${link.replace(/[.?]/g, '\\$&')}`));
    assert.ok(link.endsWith(tokenOf(answer)));
    assert.doesNotMatch(output, /\{"level":/, 'no JSON line');
  });

  it('prints where it answers, the mode, the routes module with its count, and the profiler', async () => {
    const service = await start(true);
    const output = service.output();
    assert.match(
      output,
      /vigil listening on https:\/\/localhost:\d+ \(dev, debug on: APP_ENV not set, NODE_ENV not production\)\r?\n  routes: {3}\S*demo-routes\.js \(16 routes\)\r?\n  profiler: https:\/\/localhost:\d+\/_profiler \(reports in \S+profiler\.sqlite\)/,
    );
    assert.doesNotMatch(
      output,
      /the profiler at/,
      "the banner says where the profiler is, once: not the plugin's line too",
    );
  });
});

describe('anywhere else, lines stay JSON and nothing is printed per request', () => {
  // Stopping the service is the point after which every line it wrote is in the output.
  it('to a pipe in debug mode', async () => {
    const service = await start(false, { LOG_LEVEL: 'info' });
    await ask(service, { path: '/hello' });
    await ask(service, { path: '/nope' });
    await service.stop();
    const output = service.output();
    assert.match(output, /"msg":"SIGTERM: closing connections/);
    assert.match(output, /^\{"level":30,.*"msg":"Listening on /m);
    assert.doesNotMatch(output, /GET \/hello/);
  });

  it('at a terminal in production', async () => {
    const service = await start(true, { APP_ENV: 'prod', LOG_LEVEL: 'info' });
    await ask(service, { path: '/hello' });
    // The service itself, not `script`, is told to stop: its JSON lines name its pid.
    process.kill(Number(/"pid":(\d+)/.exec(service.output())![1]), 'SIGTERM');
    const output = await outputOnceItHas(service, /"msg":"SIGTERM: closing connections/);
    assert.match(output, /"msg":"SIGTERM: closing connections/);
    assert.match(output, /\{"level":30,.*"msg":"Listening on /);
    assert.doesNotMatch(output, /GET \/hello/);
  });
});
