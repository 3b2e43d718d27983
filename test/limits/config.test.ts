/** The four limits' settings: php.ini names and value syntax, validated at start. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { runMain } from '../support/service.js';

const MB = 1024 * 1024;
const load = (env: Record<string, string>) => loadConfig(env, '/tmp');

describe('the limits default to the spec values', () => {
  it('reads 100M, 100M, 660 s and 512M', () => {
    const config = load({});
    assert.deepEqual(config.postMaxSize, { bytes: 100 * MB, text: '100M' });
    assert.deepEqual(config.uploadMaxFilesize, { bytes: 100 * MB, text: '100M' });
    assert.equal(config.maxFileUploads, 20);
    assert.equal(config.maxExecutionTime, 660);
    assert.deepEqual(config.memoryLimit, { bytes: 512 * MB, text: '512M' });
    assert.equal(config.memoryLimit.bytes, 536870912);
  });
});

describe('sizes use php.ini syntax', () => {
  it('reads bytes and K, M, G in either case as powers of 1024', () => {
    assert.equal(load({ POST_MAX_SIZE: '1048576' }).postMaxSize.bytes, MB);
    assert.equal(load({ POST_MAX_SIZE: '512k' }).postMaxSize.bytes, 512 * 1024);
    assert.equal(load({ UPLOAD_MAX_FILESIZE: '2m' }).uploadMaxFilesize.bytes, 2 * MB);
    assert.equal(load({ MEMORY_LIMIT: '1G' }).memoryLimit.bytes, 1024 * MB);
  });

  it("takes PHP's values for no limit: POST_MAX_SIZE=0, MEMORY_LIMIT=-1, MAX_EXECUTION_TIME=0", () => {
    const config = load({ POST_MAX_SIZE: '0', MEMORY_LIMIT: '-1', MAX_EXECUTION_TIME: '0' });
    assert.equal(config.postMaxSize.bytes, Infinity);
    assert.equal(config.memoryLimit.bytes, Infinity);
    assert.equal(config.maxExecutionTime, 0);
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'POST_MAX_SIZE',
      '10MB',
      /^POST_MAX_SIZE: "10MB" is not a size: use bytes or a number with K, M or G, e.g. 100M, or 0 for no limit$/,
    ],
    ['POST_MAX_SIZE', '-1', /^POST_MAX_SIZE: "-1" is not a size/],
    ['UPLOAD_MAX_FILESIZE', '0', /^UPLOAD_MAX_FILESIZE: "0" is below the minimum of 1 byte$/],
    ['UPLOAD_MAX_FILESIZE', '1.5M', /^UPLOAD_MAX_FILESIZE: "1.5M" is not a size/],
    ['MEMORY_LIMIT', '512K', /^MEMORY_LIMIT: "512K" is below the minimum of 1 MiB, or -1 for no limit$/],
    ['MEMORY_LIMIT', 'lots', /^MEMORY_LIMIT: "lots" is not a size/],
    ['MAX_EXECUTION_TIME', '1.5', /^MAX_EXECUTION_TIME: "1.5" is not a whole number from 0 to 2147483$/],
    ['MAX_EXECUTION_TIME', '-1', /^MAX_EXECUTION_TIME: "-1" is not a whole number/],
    ['ISOLATED_WORKERS', '0', /^ISOLATED_WORKERS: "0" is not a whole number from 1 to 64$/],
    ['MAX_FILE_UPLOADS', '0', /^MAX_FILE_UPLOADS: "0" is not a whole number from 1 to 1000$/],
    ['MAX_FILE_UPLOADS', '1001', /^MAX_FILE_UPLOADS: "1001" is not a whole number from 1 to 1000$/],
  ];
  for (const [variable, value, expected] of bad) {
    it(`refuses ${variable}=${value}, naming the variable`, () => {
      assert.throws(
        () => load({ [variable]: value }),
        (error: unknown) => error instanceof ConfigError && error.variable === variable && expected.test(error.message),
      );
    });
  }
});

describe('a bad limit stops the start with one line', () => {
  it('prints the variable and exits 1', async () => {
    const { code, stderr } = await runMain({ MEMORY_LIMIT: '512MB' });
    assert.equal(code, 1);
    assert.match(stderr, /^vigil: cannot start: MEMORY_LIMIT: "512MB" is not a size/);
  });
});
