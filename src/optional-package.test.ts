import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { requireOptional } from './optional-package.js';

const require = createRequire(import.meta.url);

describe('a missing optional package is named with the command that installs it', () => {
  it('when a synchronous caller requires it (the SQLite driver on Node 20)', () => {
    assert.throws(
      () =>
        requireOptional('vigil-test-package-not-installed', 'The SQLite report store on Node 20', () =>
          require('vigil-test-package-not-installed'),
        ),
      {
        message:
          'The SQLite report store on Node 20 needs the package "vigil-test-package-not-installed", which is not installed (npm install vigil-test-package-not-installed)',
      },
    );
  });

  it('lets any other failure of the package through as it is', () => {
    const failure = new Error('the binding was built for another Node');
    assert.throws(
      () =>
        requireOptional('better-sqlite3', 'The SQLite report store', () => {
          throw failure;
        }),
      (error) => error === failure,
    );
  });
});
