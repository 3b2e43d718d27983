/**
 * The error-code catalogue is complete and documented: every `VIGIL_ERR_*` code written
 * anywhere in src/ is one of its entries, every entry is used, and the table of
 * docs/error-codes.md lists the same codes with the same statuses and meanings.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { ROOT } from '../support/root.js';

const CATALOGUE = join(ROOT, 'src/errors/error-codes.ts');
const CODE = /\bVIGIL_ERR_[A-Z0-9_]+\b/g;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every code written in src/ outside the catalogue, with the files that write it. */
function codesInSources(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    if (file === CATALOGUE) continue;
    for (const [code] of readFileSync(file, 'utf8').matchAll(CODE)) {
      found.set(code, [...new Set([...(found.get(code) ?? []), relative(ROOT, file)])]);
    }
  }
  return found;
}

/** The rows of the table of docs/error-codes.md: code, status, meaning. */
function documentedRows(): Array<{ code: string; status: number; meaning: string }> {
  const page = join(ROOT, 'docs/error-codes.md');
  assert.ok(existsSync(page), 'docs/error-codes.md does not exist');
  return readFileSync(page, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `VIGIL_ERR_'))
    .map((line) => {
      const [code, status, meaning] = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      return { code: code!.replaceAll('`', ''), status: Number(status), meaning: meaning!.replaceAll('\\|', '|') };
    });
}

describe('every error code is in the catalogue', () => {
  it('lists every VIGIL_ERR_* code written in src/', () => {
    const missing = [...codesInSources()]
      .filter(([code]) => !(code in ERROR_CODES))
      .map(([code, files]) => `${code} (${files.join(', ')})`);
    assert.deepEqual(missing, []);
  });

  it('lists no code that src/ never uses', () => {
    const used = codesInSources();
    assert.deepEqual(
      Object.keys(ERROR_CODES).filter((code) => !used.has(code)),
      [],
    );
  });

  it('gives each code an error status and a meaning', () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      assert.ok(status >= 400 && status <= 599, `${code}: status ${status}`);
      assert.ok(meaning.length > 0, `${code}: no meaning`);
    }
  });
});

describe('the table of docs/error-codes.md is the catalogue', () => {
  it('lists the same codes, in the same order, with the same statuses and meanings', () => {
    const catalogue = Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => ({ code, status, meaning }));
    assert.deepEqual(documentedRows(), catalogue);
  });
});
