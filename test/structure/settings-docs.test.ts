/**
 * Issue 33, item 2: each setting is declared once, in src/config/settings.ts. The docs' table is
 * generated from that table, `--help` lists it, and `loadConfig` reads nothing else.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig, PLATFORM_VARIABLES, SETTINGS } from '../../src/config/index.js';
import { END, START, settingsMarkdown } from '../../scripts/docs-settings.js';
import { ROOT } from '../support/root.js';
import { runMain } from '../support/service.js';

describe('docs/configuration.md holds the declared settings table', () => {
  it('has the table the declarations give (run npm run docs:settings after changing them)', () => {
    const document = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    const documented = document.slice(document.indexOf(START) + START.length, document.indexOf(END)).trim();
    assert.equal(documented, settingsMarkdown());
  });
});

describe("loadConfig reads the declared settings and no other variable but the platform's", () => {
  it('asks the environment for exactly the declared names and NODE_ENV', () => {
    const asked = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === 'string') asked.add(name);
        return undefined;
      },
    });
    loadConfig(env, '/srv/app');
    assert.deepEqual([...asked].sort(), [...Object.keys(SETTINGS), ...PLATFORM_VARIABLES].sort());
  });
});

describe('--help lists every declared setting', () => {
  it('gives each its own line', async () => {
    const { code, stdout } = await runMain({}, ['--help']);
    assert.equal(code, 0);
    for (const name of Object.keys(SETTINGS)) assert.match(stdout, new RegExp(`^ {2}${name} +\\S`, 'm'), name);
  });
});
