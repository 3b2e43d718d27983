/** ROUTES that cannot be loaded: the message says whether the module itself is missing, or which package or file it imports is. */
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../config/index.js';
import { loadFailure, loadRoutesModule } from './routes-module.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-routes-module-')));
after(() => rmSync(dir, { recursive: true, force: true }));

function module(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

/** The message loading `file` is refused with, checking that it names ROUTES. */
async function refusal(file: string): Promise<string> {
  try {
    await loadRoutesModule(file);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, 'ROUTES');
    return error.message;
  }
  assert.fail(`${file} was loaded`);
}

describe('a routes module that is not there is named as missing', () => {
  it('says the file does not exist', async () => {
    assert.equal(
      await refusal(join(dir, 'none.mjs')),
      `ROUTES: cannot load ${join(dir, 'none.mjs')}: the file does not exist`,
    );
  });
});

describe('a package the routes module imports that is not installed is named', () => {
  it('names the package and the file that imports it', async () => {
    const file = module('package.mjs', "import pad from 'left-pad-not-installed';\nexport default () => pad;\n");
    assert.equal(
      await refusal(file),
      `ROUTES: cannot load ${file}: it imports the package "left-pad-not-installed", which is not installed (imported from ${file}; npm install left-pad-not-installed)`,
    );
  });
  it('names a scoped package, not the path inside it', async () => {
    const file = module(
      'scoped.mjs',
      "import x from '@vigil-test/not-installed/sub/path.js';\nexport default () => x;\n",
    );
    assert.match(await refusal(file), /it imports the package "@vigil-test\/not-installed", which is not installed/);
  });
  it('names the file a helper imports it from', async () => {
    const helper = module('helper.mjs', "export { default } from 'not-installed-either';\n");
    const file = module('uses-helper.mjs', "import x from './helper.mjs';\nexport default () => x;\n");
    assert.match(
      await refusal(file),
      new RegExp(`it imports the package "not-installed-either", which is not installed \\(imported from ${helper};`),
    );
  });
  it('reads the CommonJS form of the error (tsx outside an ES module package)', () => {
    const file = join(dir, 'routes.ts');
    let error: unknown;
    try {
      createRequire(file)('left-pad-not-installed');
    } catch (thrown) {
      error = thrown;
    }
    assert.equal(
      loadFailure(error, file),
      `it imports the package "left-pad-not-installed", which is not installed (imported from ${file}; npm install left-pad-not-installed)`,
    );
  });
});

describe('a file the routes module imports that is missing is named', () => {
  it('names the missing file and its importer', async () => {
    const file = module('relative.mjs', "import x from './gone.mjs';\nexport default () => x;\n");
    assert.equal(
      await refusal(file),
      `ROUTES: cannot load ${file}: it imports ${join(dir, 'gone.mjs')}, which does not exist (imported from ${file})`,
    );
  });
});

describe('other failures keep their own message', () => {
  it('gives the error a module throws while loading', async () => {
    const file = module('throws.mjs', "throw new Error('config missing');\n");
    assert.equal(await refusal(file), `ROUTES: cannot load ${file}: config missing`);
  });
});
