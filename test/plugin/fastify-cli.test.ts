/**
 * Issue 43, item 5: `fastify start -o` (fastify-cli, installed from npm) starts an
 * application whose `options` export is `vigilFastifyOptions(config)`, and the kernel answers.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtFile } from '../support/kernel-build.js';
import { ROOT } from '../support/root.js';
import { ask, type Service } from '../support/service.js';

let child: ChildProcess;
let output = '';
let service: Pick<Service, 'url' | 'ca'>;

function freePort(): Promise<number> {
  return new Promise((resolvePromise) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePromise(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  const cli = join(ROOT, 'node_modules/fastify-cli/cli.js');
  const module = builtFile('test/fixtures/fastify-cli-start-app.ts')!;
  child = spawn(process.execPath, [cli, 'start', '-o', '-a', '127.0.0.1', '-p', String(port), module], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  service = { url: `http://127.0.0.1:${port}`, ca: undefined };
  // Listening once it answers; an exit first is the failure under test.
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`fastify start exited with ${code}:\n${output}`))),
  );
  const answering = (async () => {
    for (;;) {
      try {
        return await ask(service, { path: '/hello', timeoutMs: 1000 });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  await Promise.race([answering, exited]);
});
after(() => {
  child?.kill('SIGTERM');
});

describe('fastify start -o with vigilFastifyOptions as the options export', () => {
  it("starts, serves the plugin's routes, and answers the rest with the kernel's 404", async () => {
    assert.equal((await ask(service, { path: '/hello' })).status, 200);
    const missing = await ask(service, { path: '/robots.txt' });
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });
});
