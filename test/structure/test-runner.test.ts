/**
 * `npm test` (test/run.ts) bounds each test file's process: a process past TEST_FILE_TIMEOUT_S
 * is named, fails the run, and is ended with every process it started, as are all of them
 * when the run is interrupted. The runner runs here on fixtures that are not `*.test.ts`
 * files, so the suite never runs them itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { runNode } from '../support/command-line.js';
import { ROOT } from '../support/root.js';

const PASSING = 'test/fixtures/passing-test-file.ts';
const HANGING = 'test/fixtures/hanging-test-file.ts';

/** True while the process runs: a zombie has ended, only its parent's wait is missing. */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return false;
  }
}

describe('npm test', () => {
  it('names a process past TEST_FILE_TIMEOUT_S, fails the run and ends all it started', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'vigil-test-runner-'));
    try {
      const pidFile = join(directory, 'pid');
      // The two short files share one runner process.
      const run = await runNode(['--import', 'tsx', 'test/run.ts', PASSING, HANGING], {
        TEST_FILE_TIMEOUT_S: '2',
        HANGING_PID_FILE: pidFile,
      });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.ok(run.stderr.includes(`${PASSING}, ${HANGING}`), run.stderr);
      assert.ok(run.stderr.includes(`It was running ${HANGING}.`), run.stderr);
      assert.equal(running(Number(readFileSync(pidFile, 'utf8'))), false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('ends every running process group when interrupted', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'vigil-test-runner-'));
    try {
      const pidFile = join(directory, 'pid');
      const run = spawn(process.execPath, ['--import', 'tsx', 'test/run.ts', HANGING], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HANGING_PID_FILE: pidFile },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      run.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => run.on('exit', resolve));
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '') {
        assert.equal(run.exitCode, null, stderr);
        await sleep(50);
      }
      run.kill('SIGTERM');
      assert.equal(await exited, 143, stderr);
      assert.ok(stderr.includes(`interrupted (SIGTERM). Ending the processes of ${HANGING}.`), stderr);
      assert.equal(running(Number(readFileSync(pidFile, 'utf8'))), false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  for (const value of ['0', 'ten', '1.5'])
    it(`refuses TEST_FILE_TIMEOUT_S=${value}`, async () => {
      const run = await runNode(['--import', 'tsx', 'test/run.ts', PASSING], { TEST_FILE_TIMEOUT_S: value });
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stderr, /TEST_FILE_TIMEOUT_S/);
    });
});
