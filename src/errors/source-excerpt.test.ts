/** Source excerpts come only from regular files under the project's root, of a bounded size, without blocking. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_SOURCE_BYTES, sourceExcerpt } from './source-excerpt.js';

let base: string;
let root: string;
let outside: string;
const SOURCE = ['const a = 1;', 'const b = 2;', 'throw new Error("here");', 'const c = 3;', ''].join('\n');

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-excerpt-')));
  root = join(base, 'project');
  outside = join(base, 'elsewhere');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src/app.ts'), SOURCE);
  writeFileSync(join(outside, 'secret.ts'), SOURCE);
  symlinkSync(join(outside, 'secret.ts'), join(root, 'src/link.ts'));
  symlinkSync(join(root, 'src/app.ts'), join(root, 'src/inside-link.ts'));
  writeFileSync(join(root, 'src/big.ts'), `${'x'.repeat(MAX_SOURCE_BYTES)}\n`);
  writeFileSync(join(root, 'src/key.pem'), SOURCE);
  symlinkSync('/dev/zero', join(root, 'src/zero.ts'));
  execFileSync('mkfifo', [join(root, 'src/fifo.ts')]);
});
after(() => rmSync(base, { recursive: true, force: true }));

describe('sourceExcerpt reads only regular source files under the root', () => {
  it('gives the lines around a line of a project file', () => {
    assert.deepEqual(sourceExcerpt(join(root, 'src/app.ts'), 3, { root, radius: 1 }), [
      { number: 2, text: 'const b = 2;' },
      { number: 3, text: 'throw new Error("here");' },
      { number: 4, text: 'const c = 3;' },
    ]);
  });

  it('follows a link that stays under the root', () => {
    assert.equal(
      sourceExcerpt(join(root, 'src/inside-link.ts'), 3, { root, radius: 0 })?.[0]?.text,
      'throw new Error("here");',
    );
  });

  it('gives nothing for a file outside the root', () => {
    assert.equal(sourceExcerpt(join(outside, 'secret.ts'), 3, { root }), undefined);
    assert.equal(sourceExcerpt(join(root, '../elsewhere/secret.ts'), 3, { root }), undefined);
    assert.equal(sourceExcerpt('/etc/passwd', 1, { root: '/' }), undefined, 'not a source file');
  });

  it('gives nothing for a link pointing outside the root', () => {
    assert.equal(sourceExcerpt(join(root, 'src/link.ts'), 3, { root }), undefined);
  });

  it('gives nothing for a FIFO, and returns at once', () => {
    // A blocking open of a FIFO without a writer would hang this test.
    assert.equal(sourceExcerpt(join(root, 'src/fifo.ts'), 1, { root }), undefined);
  });

  it('gives nothing for a device', () => {
    // With "/" as the root, only the kind of file stands in the way.
    assert.equal(sourceExcerpt(join(root, 'src/zero.ts'), 1, { root: '/' }), undefined);
  });

  it(`gives nothing for a file over ${MAX_SOURCE_BYTES} bytes`, () => {
    assert.equal(sourceExcerpt(join(root, 'src/big.ts'), 1, { root }), undefined);
  });

  it('gives nothing for a file that is not source code', () => {
    assert.equal(sourceExcerpt(join(root, 'src/key.pem'), 1, { root }), undefined);
  });

  it('gives nothing for a relative path, a missing file or a line out of range', () => {
    assert.equal(sourceExcerpt('src/app.ts', 1, { root }), undefined);
    assert.equal(sourceExcerpt(join(root, 'src/missing.ts'), 1, { root }), undefined);
    assert.equal(sourceExcerpt(join(root, 'src/app.ts'), 99, { root }), undefined);
  });
});
