/** `npm run dev`: the service restarts on a change to its routes module, keeping its certificate and its store. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { ROOT } from '../support/root.js';
import { ask } from '../support/service.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-dev-'));
const routesFile = join(dir, 'routes.ts');
const routes = (answer: string) =>
  `import { defineRoutes } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};\nexport default defineRoutes((routes) => { routes.get('/v', () => '${answer}'); });\n`;

// Its own process group: tsx watch runs the service as a child, and both are stopped at the end.
writeFileSync(routesFile, routes('one'));
const dev = spawn('npm', ['run', 'dev'], {
  cwd: ROOT,
  detached: true,
  env: {
    PATH: process.env.PATH ?? '',
    HOST: 'localhost',
    PORT: '0',
    VAR_DIR: join(dir, 'var'),
    ROUTES: routesFile,
    LOG_LEVEL: 'warn',
  },
});
let output = '';
dev.stdout.on('data', (chunk: Buffer) => (output += chunk));
dev.stderr.on('data', (chunk: Buffer) => (output += chunk));
after(() => {
  try {
    process.kill(-dev.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
});

/** The URL of the `n`th start (1-based), once the service has printed it. */
async function nthStart(n: number): Promise<{ url: string; ca: string }> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const starts = [...output.matchAll(/vigil listening on (\S+)/g)];
    if (starts.length >= n)
      return { url: starts[n - 1]![1]!, ca: readFileSync(join(dir, 'var/tls/localhost.crt'), 'utf8') };
    await sleep(50);
  }
  throw new Error(`no start number ${n}:\n${output}`);
}

describe('npm run dev restarts the service when its routes module changes', () => {
  it('serves the changed route, with the same certificate, and the reports stored before', async () => {
    const first = await nthStart(1);
    const before = await ask(first, { path: '/v' });
    assert.equal(before.body, 'one');
    writeFileSync(routesFile, routes('two'));
    const second = await nthStart(2);
    const afterChange = await ask(second, { path: '/v' });
    assert.equal(afterChange.body, 'two');
    assert.equal(second.ca, first.ca, 'the certificate is kept');
    const earlier = await ask(second, {
      path: `/_profiler/${tokenOf(before)}`,
      headers: { accept: 'application/json' },
    });
    assert.equal(earlier.status, 200, 'the report stored before the restart opens after it');
  });
});
