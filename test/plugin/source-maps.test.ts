/**
 * Issue 43, item 7: an application compiled to JavaScript and started with plain `node` (no
 * `--enable-source-maps`) loaded its files before vigil turned source maps on; its frames
 * still name the `.ts` line, read from the `.js.map` beside each file.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exceptionFile, lineOf } from '../support/answers.js';
import { builtFile } from '../support/kernel-build.js';
import { ROOT } from '../support/root.js';
import { ask } from '../support/service.js';

const SOURCE = join(ROOT, 'test/fixtures/compiled-app.ts');
let child: ChildProcess;
let url: string;

before(async () => {
  child = spawn(process.execPath, [builtFile('test/fixtures/compiled-app.ts')!], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = await new Promise<string>((resolvePromise, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const line = /^(http:\S+)\n/m.exec(output);
      if (line) resolvePromise(line[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the application exited with ${code}: ${output}`)));
  });
});
after(() => {
  child?.kill('SIGTERM');
});

describe('a compiled application run without --enable-source-maps', () => {
  it('names the .ts file and line that raised the error', async () => {
    const answer = await ask({ url, ca: undefined }, { path: '/boom' });
    assert.equal(answer.status, 500);
    assert.deepEqual(exceptionFile(answer), { file: SOURCE, line: lineOf(SOURCE, '// raised: compiled') });
  });
});
