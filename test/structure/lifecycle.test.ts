/**
 * The kernel's hooks are declared in one table, `src/kernel-hooks.ts`, in the order each
 * stage runs them: no other module of src/ adds a hook (each concern exports its handlers).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/root.js';

const TABLE = 'src/kernel-hooks.ts';
/** The command line is not the kernel: `--app` hooks the application it reads to find vigil in it. */
const NOT_THE_KERNEL = ['src/cli/'];
/** A call of Fastify's `addHook`, outside a comment line. */
const ADD_HOOK = /^(?!\s*(?:\*|\/\/)).*\baddHook\(/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the lifecycle table', () => {
  it('is the only module of src/ that adds a hook', () => {
    const elsewhere: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      if (path === TABLE || NOT_THE_KERNEL.some((folder) => path.startsWith(folder))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (ADD_HOOK.test(line)) elsewhere.push(`${path}:${index + 1}`);
        });
    }
    assert.deepEqual(elsewhere, []);
  });
});
