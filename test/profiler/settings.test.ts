/** The profiler's settings: defaults, accepted forms, and a bad value stopping the start with the variable's name. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { runMain } from '../support/service.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv');
const DAY = 86_400_000;

function rejects(env: Record<string, string>, variable: string) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError && error.variable === variable && error.message.startsWith(`${variable}: `),
  );
}

describe('PROFILER_MAX_REPORTS: how many reports are kept (default 10000)', () => {
  it('defaults to 10000 and takes a whole number from 1 to 5000000', () => {
    assert.equal(load({}).profilerMaxReports, 10_000);
    assert.equal(load({ PROFILER_MAX_REPORTS: '250' }).profilerMaxReports, 250);
    for (const bad of ['0', '-5', '1.5', 'many', '5000001'])
      rejects({ PROFILER_MAX_REPORTS: bad }, 'PROFILER_MAX_REPORTS');
  });
});

describe('PROFILER_MAX_AGE: how long reports are kept (default 2 days)', () => {
  it('defaults to two days', () => assert.equal(load({}).profilerMaxAgeMs, 2 * DAY));
  it('takes seconds, or a number with s, m, h or d', () => {
    assert.equal(load({ PROFILER_MAX_AGE: '90' }).profilerMaxAgeMs, 90_000);
    assert.equal(load({ PROFILER_MAX_AGE: '90s' }).profilerMaxAgeMs, 90_000);
    assert.equal(load({ PROFILER_MAX_AGE: '30m' }).profilerMaxAgeMs, 30 * 60_000);
    assert.equal(load({ PROFILER_MAX_AGE: '48h' }).profilerMaxAgeMs, 2 * DAY);
    assert.equal(load({ PROFILER_MAX_AGE: '7D' }).profilerMaxAgeMs, 7 * DAY);
  });
  it('rejects anything else', () => {
    for (const bad of ['0', '2 weeks', '1.5h', '-1d', 'h', '3651d'])
      rejects({ PROFILER_MAX_AGE: bad }, 'PROFILER_MAX_AGE');
  });
});

describe('PROFILER_ALLOW: networks besides loopback that may open the profiler', () => {
  it('takes comma-separated IPs and CIDRs', () => {
    assert.deepEqual(load({}).profilerAllow, []);
    assert.deepEqual(load({ PROFILER_ALLOW: '10.0.0.0/8, 192.0.2.7,fd00::/8' }).profilerAllow, [
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
    ]);
  });
  it('rejects what is not an address or range', () => {
    for (const bad of ['10.0.0.0/33', 'localhost', '10.0.0.0/8,', '1.2.3.4/8/1'])
      rejects({ PROFILER_ALLOW: bad }, 'PROFILER_ALLOW');
  });
});

describe('PROFILER_REDACT: header and query names redacted besides the built-in secrets', () => {
  it('takes comma-separated names, compared without case', () => {
    assert.deepEqual(load({ PROFILER_REDACT: 'X-Api-Key, token,user[password]' }).profilerRedact, [
      'x-api-key',
      'token',
      'user[password]',
    ]);
  });
  it('rejects a name with a space, = or & inside, or an empty one', () => {
    for (const bad of ['x api', 'a=b', 'a&b', 'x,,y']) rejects({ PROFILER_REDACT: bad }, 'PROFILER_REDACT');
  });
});

describe('a bad profiler setting stops the start with a message naming the variable', () => {
  it('exits with the message on one line', async () => {
    const { code, stderr } = await runMain({ PROFILER_MAX_AGE: 'soon' });
    assert.equal(code, 1);
    assert.match(stderr, /^vigil: cannot start: PROFILER_MAX_AGE: "soon" is not a duration/);
  });

  it('refuses a PROFILER_DSN of a store there is none of (mysql://), naming the supported schemes and not the password', async () => {
    const { code, stderr } = await runMain({
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-dsn-')),
      PROFILER_DSN: 'mysql://vigil:s3cret@db.internal:3306/vigil',
    });
    assert.equal(code, 1);
    assert.equal(
      stderr,
      'vigil: cannot start: PROFILER_DSN: the scheme "mysql:" is not supported; the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and postgres://user:password@host:port/database (PostgreSQL)\n',
    );
  });
});
