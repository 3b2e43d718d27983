/**
 * Issue 43, item 2: the README's plugin application, run at a terminal from a project that
 * installed only fastify and the packed package. pino-pretty, an optional peer, is not
 * there: the logs are JSON with one line saying how to get readable ones, and the
 * application serves. `script` gives it a terminal.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadNodeSqlite } from '../../src/profiler/storage/sqlite/sqlite-node-driver.js';
import { installedPackage } from '../support/package-build.js';

/** The README's app.mjs, on a free port, asking itself once and closing. */
const APP = `import Fastify from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from 'fastify-vigil';

const config = loadConfig();
const app = Fastify(vigilFastifyOptions(config));
await app.register(vigil, { config });
app.get('/hello', async () => ({ hello: 'world' }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
const answer = await fetch(url + '/hello');
console.log('answered ' + answer.status);
await app.close();
`;

function atTerminal(command: string, cwd: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd, env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolvePromise(stdout + stderr),
    );
  });
}

describe("the README's plugin app at a terminal, without pino-pretty", () => {
  it('logs JSON, says once how to get readable lines, and serves', async () => {
    const { project } = installedPackage();
    assert.ok(!existsSync(join(project, 'node_modules', 'pino-pretty')), 'pino-pretty is not installed');
    writeFileSync(join(project, 'app.mjs'), APP);
    const output = await atTerminal(`${JSON.stringify(process.execPath)} app.mjs`, project, {
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-readme-app-')),
    });
    assert.match(output, /answered 200/);
    assert.equal(
      output.match(/vigil: logs are JSON lines; for readable ones at a terminal, install pino-pretty/g)?.length,
      1,
      output,
    );
    assert.doesNotMatch(output, /Cannot find module/);
  });
});

describe("the README's plugin app on a Node without node:sqlite, without better-sqlite3", () => {
  const reason = loadNodeSqlite() === undefined ? false : 'this Node has node:sqlite: the store needs no package';
  it('starts, serves, and says in one line that the profiler is off and why', { skip: reason }, async () => {
    const { project } = installedPackage();
    // The project as `npm install fastify fastify-vigil` leaves it: no optional peer.
    const bare = mkdtempSync(join(tmpdir(), 'vigil-no-sqlite-'));
    cpSync(project, bare, {
      recursive: true,
      filter: (path) => !path.includes(`${join('node_modules', 'better-sqlite3')}`),
    });
    writeFileSync(join(bare, 'app.mjs'), APP);
    const output = await new Promise<string>((resolvePromise, reject) => {
      execFile(
        process.execPath,
        ['app.mjs'],
        { cwd: bare, env: { PATH: process.env.PATH ?? '', VAR_DIR: join(bare, 'var') }, timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolvePromise(stdout + stderr),
      );
    });
    assert.match(output, /answered 200/);
    assert.equal(output.match(/vigil: the profiler is off: .*better-sqlite3/g)?.length, 1, output);
  });
});
