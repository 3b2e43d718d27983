import assert from 'node:assert/strict';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ConfigError,
  describeMode,
  loadConfig,
  profilerRuns,
  SETTINGS,
  STANDALONE_PARSED_BODY_MAX_SIZE,
  type Env,
  type Setting,
} from './index.js';

const CWD = '/srv/app';
const load = (env: Env) => loadConfig(env, CWD);

/** The message a bad environment is refused with, checking that the error names `variable`. */
function refusal(env: Env, variable: string): string {
  try {
    load(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.name, 'ConfigError');
    assert.equal(error.variable, variable);
    return error.message;
  }
  assert.fail(`${JSON.stringify(env)} was accepted`);
}

describe('every setting has a documented default', () => {
  it('gives the defaults for an empty environment', () => {
    const { cors, isolatedWorkers, ...config } = load({});
    assert.deepEqual(config, {
      appEnv: 'dev',
      debug: true,
      modeReason: 'APP_ENV not set, NODE_ENV not production',
      host: 'localhost',
      port: 8443,
      tls: true,
      varDir: '/srv/app/var',
      routes: undefined,
      tlsCert: undefined,
      tlsKey: undefined,
      trustedHosts: [],
      trustedProxies: [],
      logLevel: 'info',
      profilerStore: { scheme: 'sqlite', file: '/srv/app/var/profiler.sqlite' },
      profilerMaxReports: 10000,
      profilerMaxAgeMs: 172_800_000,
      profilerOverviewRetentionMs: 7 * 86_400_000,
      profilerAllow: [],
      profilerRedact: [],
      profilerSecret: undefined,
      profilerSessionMaxAgeMs: 12 * 3600 * 1000,
      profilerToolbar: true,
      profilerCaptureApp: true,
      profilerSlowQueryMs: 100,
      profilerKeep: ['all'],
      profilerSample: 0,
      profilerSlowRequestMs: 1000,
      profilerKeepMaxPerSecond: 10,
      ide: undefined,
      postMaxSize: { bytes: 104_857_600, text: '100M' },
      parsedBodyMaxSize: undefined,
      bodyTimeoutMs: 60_000,
      bodyMinRate: 500,
      uploadMaxFilesize: { bytes: 104_857_600, text: '100M' },
      maxFileUploads: 20,
      maxExecutionTime: 660,
      memoryLimit: { bytes: 536_870_912, text: '512M' },
      handshakeTimeoutMs: 10_000,
      maxConnections: 10_000,
      shutdownTimeoutMs: 30_000,
      workers: 1,
    });
    assert.deepEqual(
      { ...cors, allowOrigin: [cors.allowOrigin.source, cors.allowOrigin.flags] },
      {
        allowOrigin: ['^https?:\\/\\/(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$', 'i'],
        allowMethods: ['GET', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowHeaders: ['content-type', 'authorization'],
        exposeHeaders: ['link'],
        maxAge: 3600,
      },
    );
    assert.equal(isolatedWorkers, Math.min(availableParallelism(), 8));
  });
  it('takes an empty or blank value as unset, and trims the others', () => {
    assert.deepEqual([load({ PORT: '', HOST: '   ' }).port, load({ PORT: '', HOST: '   ' }).host], [8443, 'localhost']);
    assert.equal(load({ PORT: ' 9443 ' }).port, 9443);
  });
});

describe('the Config type is made from the settings table', () => {
  it('gives each field of Config to one setting at most', () => {
    const fields = Object.values<Setting<unknown>>(SETTINGS).flatMap((declared) => declared.field ?? []);
    assert.deepEqual(
      fields.filter((field, index) => fields.indexOf(field) !== index),
      [],
    );
  });
});

describe('PARSED_BODY_MAX_SIZE not set is undefined: the caller gives its own default', () => {
  it('leaves the size undefined when the variable is not set, or blank', () => {
    assert.equal(load({}).parsedBodyMaxSize, undefined);
    assert.equal(load({ PARSED_BODY_MAX_SIZE: ' ' }).parsedBodyMaxSize, undefined);
  });
  it("gives the standalone service's default as the table documents it", () => {
    assert.deepEqual(STANDALONE_PARSED_BODY_MAX_SIZE, { bytes: 524_288, text: '512K' });
    assert.equal(SETTINGS.PARSED_BODY_MAX_SIZE.default, '512K');
    assert.deepEqual(load({ PARSED_BODY_MAX_SIZE: '512K' }).parsedBodyMaxSize, STANDALONE_PARSED_BODY_MAX_SIZE);
  });
});

describe('APP_ENV is dev or prod, and APP_DEBUG follows it unless set', () => {
  it('turns debug off in prod', () => {
    const config = load({ APP_ENV: 'prod' });
    assert.deepEqual([config.appEnv, config.debug], ['prod', false]);
  });
  it('lets APP_DEBUG override either way', () => {
    assert.equal(load({ APP_ENV: 'prod', APP_DEBUG: '1' }).debug, true);
    assert.equal(load({ APP_ENV: 'dev', APP_DEBUG: '0' }).debug, false);
  });
  it('takes NODE_ENV=production for prod when APP_ENV is not set, and says so', () => {
    const config = load({ NODE_ENV: 'production' });
    assert.deepEqual([config.appEnv, config.debug], ['prod', false]);
    assert.equal(describeMode(config), 'prod, debug off: NODE_ENV=production, APP_ENV not set');
    assert.equal(load({ NODE_ENV: ' Production ' }).appEnv, 'prod');
  });
  it('lets APP_ENV win over NODE_ENV, and stays dev for any other NODE_ENV', () => {
    const config = load({ NODE_ENV: 'production', APP_ENV: 'dev' });
    assert.deepEqual([config.appEnv, config.debug], ['dev', true]);
    assert.equal(describeMode(config), 'dev, debug on: APP_ENV=dev');
    for (const nodeEnv of ['development', 'test', '']) assert.equal(load({ NODE_ENV: nodeEnv }).appEnv, 'dev', nodeEnv);
    assert.equal(describeMode(load({})), 'dev, debug on: APP_ENV not set, NODE_ENV not production');
    assert.equal(
      describeMode(load({ NODE_ENV: 'production', APP_DEBUG: '1' })),
      'prod, debug on: NODE_ENV=production, APP_ENV not set, APP_DEBUG=1',
    );
  });
  it('refuses another environment, case included', () => {
    assert.equal(refusal({ APP_ENV: 'staging' }, 'APP_ENV'), 'APP_ENV: "staging" is not one of dev, prod');
    assert.equal(refusal({ APP_ENV: 'PROD' }, 'APP_ENV'), 'APP_ENV: "PROD" is not one of dev, prod');
  });
});

describe('a boolean is 1, true, on, yes or 0, false, off, no, in any case', () => {
  it('reads each spelling', () => {
    for (const value of ['1', 'true', 'ON', 'Yes']) assert.equal(load({ TLS: value }).tls, true, value);
    for (const value of ['0', 'FALSE', 'off', 'No']) assert.equal(load({ TLS: value }).tls, false, value);
  });
  it('refuses anything else, quoting the value as set', () => {
    assert.equal(refusal({ APP_DEBUG: 'maybe' }, 'APP_DEBUG'), 'APP_DEBUG: "maybe" is not a boolean (use 1 or 0)');
    assert.equal(refusal({ TLS: '2' }, 'TLS'), 'TLS: "2" is not a boolean (use 1 or 0)');
  });
});

describe('HOST is a host name or an IP address', () => {
  it('accepts names and v4 and v6 addresses', () => {
    for (const host of ['0.0.0.0', '::', '::1', 'api.example.com', 'my-host', 'A1'])
      assert.equal(load({ HOST: host }).host, host);
  });
  it('refuses what is neither', () => {
    for (const host of ['bad_host', '-start', 'end-', 'a..b', 'host:80', 'http://localhost', '256.0.0.1.']) {
      assert.equal(refusal({ HOST: host }, 'HOST'), `HOST: "${host}" is not a host name or IP address`);
    }
  });
});

describe('a whole-number setting is digits within its range', () => {
  it('accepts the bounds of PORT, 0 to 65535', () => {
    assert.equal(load({ PORT: '0' }).port, 0);
    assert.equal(load({ PORT: '65535' }).port, 65535);
  });
  it('refuses numbers outside the range, signs, fractions and words', () => {
    for (const port of ['65536', '-1', '+80', '80.0', '8e3', 'eighty', '0x50']) {
      assert.equal(refusal({ PORT: port }, 'PORT'), `PORT: "${port}" is not a whole number from 0 to 65535`);
    }
  });
  it('has the documented range for each', () => {
    const ranges: Array<[string, keyof ReturnType<typeof load> | 'cors.maxAge', number, number]> = [
      ['PROFILER_MAX_REPORTS', 'profilerMaxReports', 1, 5_000_000],
      ['CORS_MAX_AGE', 'cors.maxAge', 0, 2_147_483_647],
      ['MAX_EXECUTION_TIME', 'maxExecutionTime', 0, 2_147_483],
      ['ISOLATED_WORKERS', 'isolatedWorkers', 1, 64],
    ];
    for (const [variable, key, min, max] of ranges) {
      const read = (value: number) => {
        const config = load({ [variable]: String(value) });
        return key === 'cors.maxAge' ? config.cors.maxAge : config[key];
      };
      assert.deepEqual([read(min), read(max)], [min, max], variable);
      assert.equal(
        refusal({ [variable]: String(max + 1) }, variable),
        `${variable}: "${max + 1}" is not a whole number from ${min} to ${max}`,
      );
      if (min > 0)
        assert.equal(
          refusal({ [variable]: String(min - 1) }, variable),
          `${variable}: "${min - 1}" is not a whole number from ${min} to ${max}`,
        );
    }
  });
});

describe('WORKERS is a number of processes, or auto for one per core', () => {
  it('reads a count and auto', () => {
    assert.equal(load({ WORKERS: '4' }).workers, 4);
    assert.equal(load({ WORKERS: 'auto' }).workers, availableParallelism());
    assert.equal(load({ WORKERS: 'AUTO' }).workers, availableParallelism());
  });
  it('refuses 0, words, signs and more than 256', () => {
    for (const value of ['0', 'abc', '-1', '2.5', '257']) {
      assert.equal(
        refusal({ WORKERS: value }, 'WORKERS'),
        `WORKERS: "${value}" is not a whole number from 1 to 256, or auto (one per core)`,
      );
    }
  });
  it('shares the default ISOLATED_WORKERS between the workers, at least one each', () => {
    const cores = Math.min(availableParallelism(), 8);
    assert.equal(load({ WORKERS: '2' }).isolatedWorkers, Math.ceil(cores / 2));
    assert.equal(load({ WORKERS: '64' }).isolatedWorkers, 1);
    assert.equal(load({ WORKERS: '64', ISOLATED_WORKERS: '3' }).isolatedWorkers, 3);
  });
});

describe('paths are resolved against the working directory', () => {
  it('resolves relative paths and keeps absolute ones', () => {
    const config = load({
      VAR_DIR: 'data',
      ROUTES: 'examples/demo-routes.ts',
      TLS_CERT: '/etc/tls/cert.pem',
      TLS_KEY: '../keys/key.pem',
    });
    assert.deepEqual(
      [config.varDir, config.routes, config.tlsCert, config.tlsKey],
      ['/srv/app/data', '/srv/app/examples/demo-routes.ts', '/etc/tls/cert.pem', '/srv/keys/key.pem'],
    );
  });
  it('refuses TLS_CERT without TLS_KEY, and the reverse, naming the missing one', () => {
    assert.equal(refusal({ TLS_CERT: 'cert.pem' }, 'TLS_KEY'), 'TLS_KEY: TLS_CERT and TLS_KEY must be set together');
    assert.equal(refusal({ TLS_KEY: 'key.pem' }, 'TLS_CERT'), 'TLS_CERT: TLS_CERT and TLS_KEY must be set together');
  });
});

describe('LOG_LEVEL is a pino level', () => {
  it('accepts each level', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      assert.equal(load({ LOG_LEVEL: level }).logLevel, level);
  });
  it('refuses another', () => {
    assert.equal(
      refusal({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'),
      'LOG_LEVEL: "verbose" is not one of fatal, error, warn, info, debug, trace, silent',
    );
  });
});

describe('TRUSTED_PROXIES and PROFILER_ALLOW are comma-separated IPs or CIDR ranges', () => {
  it('accepts v4 and v6 addresses and ranges up to their bit length, trimmed', () => {
    const value = '10.0.0.0/8, 192.168.1.1 ,::1/128,2001:db8::/32,0.0.0.0/0,172.16.0.0/32';
    const expected = ['10.0.0.0/8', '192.168.1.1', '::1/128', '2001:db8::/32', '0.0.0.0/0', '172.16.0.0/32'];
    assert.deepEqual(load({ TRUSTED_PROXIES: value }).trustedProxies, expected);
    assert.deepEqual(load({ PROFILER_ALLOW: value }).profilerAllow, expected);
  });
  it('refuses prefixes longer than the address, malformed ranges, names and empty items', () => {
    for (const item of [
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/x',
      '10.0.0.256',
      'localhost',
      '10.0.0',
      '',
    ]) {
      assert.equal(
        refusal({ TRUSTED_PROXIES: `127.0.0.1,${item}` }, 'TRUSTED_PROXIES'),
        `TRUSTED_PROXIES: "${item}" is not an IP address or CIDR range`,
      );
    }
    assert.equal(
      refusal({ PROFILER_ALLOW: '10.0.0.0/99' }, 'PROFILER_ALLOW'),
      'PROFILER_ALLOW: "10.0.0.0/99" is not an IP address or CIDR range',
    );
  });
});

describe('PROFILER_MAX_AGE is seconds, or a number with s, m, h or d, from 1 s to 3650 d', () => {
  it('reads each unit, in either case, as milliseconds', () => {
    const cases: Array<[string, number]> = [
      ['1', 1000],
      ['90', 90_000],
      ['90s', 90_000],
      ['30m', 1_800_000],
      ['48h', 172_800_000],
      ['2D', 172_800_000],
      ['10 m', 600_000],
      ['3650d', 315_360_000_000],
    ];
    for (const [value, ms] of cases) assert.equal(load({ PROFILER_MAX_AGE: value }).profilerMaxAgeMs, ms, value);
  });
  it('refuses zero, more than 3650 days, fractions and other units', () => {
    for (const value of ['0', '0s', '3651d', '87601h', '1.5h', '1w', '-1', 'h', '2 days']) {
      assert.equal(
        refusal({ PROFILER_MAX_AGE: value }, 'PROFILER_MAX_AGE'),
        `PROFILER_MAX_AGE: "${value}" is not a duration from 1s to 3650d (a number of seconds, or with a unit: 90s, 30m, 48h, 2d)`,
      );
    }
  });
});

describe('PROFILER_KEEP lists what production keeps: all, errors, slow, or none; debug mode keeps all', () => {
  it('is none in production and all in debug mode when not set', () => {
    assert.deepEqual(load({ APP_ENV: 'prod' }).profilerKeep, []);
    assert.deepEqual(load({ APP_ENV: 'dev' }).profilerKeep, ['all']);
    assert.deepEqual(load({ APP_ENV: 'dev', PROFILER_KEEP: 'errors' }).profilerKeep, ['all']);
  });
  it('reads a comma list in any case, each outcome once, or none alone', () => {
    assert.deepEqual(load({ APP_ENV: 'prod', PROFILER_KEEP: 'Errors, slow,errors' }).profilerKeep, ['errors', 'slow']);
    assert.deepEqual(load({ APP_ENV: 'prod', PROFILER_KEEP: 'none' }).profilerKeep, []);
    for (const value of ['errors,none', 'fast', 'errors,,slow', '5xx']) {
      assert.match(
        refusal({ PROFILER_KEEP: value }, 'PROFILER_KEEP'),
        /is not one of all, errors, slow \(comma-separated\), or none alone/,
      );
    }
  });
  it('tells whether the profiler runs: debug mode, PROFILER_KEEP or a sample', () => {
    assert.equal(profilerRuns(load({ APP_ENV: 'prod' })), false);
    assert.equal(profilerRuns(load({ APP_ENV: 'prod', PROFILER_KEEP: 'slow' })), true);
    assert.equal(profilerRuns(load({ APP_ENV: 'prod', PROFILER_SAMPLE: '0.01' })), true);
    assert.equal(profilerRuns(load({ APP_ENV: 'dev' })), true);
  });
});

describe('PROFILER_SAMPLE is a share from 0 to 1, PROFILER_SLOW_REQUEST a duration from 1ms', () => {
  it('reads shares and durations', () => {
    assert.equal(load({ PROFILER_SAMPLE: '0.25' }).profilerSample, 0.25);
    assert.equal(load({ PROFILER_SAMPLE: '1' }).profilerSample, 1);
    assert.equal(load({ PROFILER_SLOW_REQUEST: '50ms' }).profilerSlowRequestMs, 50);
    assert.equal(load({ PROFILER_SLOW_REQUEST: '2' }).profilerSlowRequestMs, 2000);
    assert.equal(load({ PROFILER_SLOW_REQUEST: '2m' }).profilerSlowRequestMs, 120_000);
  });
  it('refuses what is not one', () => {
    for (const value of ['1.5', '-0.1', '10%', 'half', '.'])
      assert.match(refusal({ PROFILER_SAMPLE: value }, 'PROFILER_SAMPLE'), /is not a share from 0 to 1/);
    for (const value of ['0ms', '0', '25h', 'fast', '1.5s'])
      assert.match(
        refusal({ PROFILER_SLOW_REQUEST: value }, 'PROFILER_SLOW_REQUEST'),
        /is not a duration from 1ms to 24h/,
      );
  });
});

describe('PROFILER_DSN picks the report store: sqlite:<path>, by default under VAR_DIR, or postgres://', () => {
  const SUPPORTED =
    'the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and postgres://user:password@host:port/database (PostgreSQL)';
  it('follows VAR_DIR by default, and resolves a relative path against the working directory', () => {
    assert.deepEqual(load({ VAR_DIR: '/data' }).profilerStore, { scheme: 'sqlite', file: '/data/profiler.sqlite' });
    assert.deepEqual(load({ PROFILER_DSN: 'sqlite:shared/reports.sqlite' }).profilerStore, {
      scheme: 'sqlite',
      file: '/srv/app/shared/reports.sqlite',
    });
    assert.deepEqual(load({ PROFILER_DSN: 'sqlite:/var/lib/vigil/profiler.sqlite' }).profilerStore, {
      scheme: 'sqlite',
      file: '/var/lib/vigil/profiler.sqlite',
    });
  });
  it('takes a postgres:// or postgresql:// URL, kept whole for the driver and named without its password', () => {
    assert.deepEqual(load({ PROFILER_DSN: 'postgres://vigil:s3cret@db.internal:5433/reports' }).profilerStore, {
      scheme: 'postgres',
      url: 'postgres://vigil:s3cret@db.internal:5433/reports',
      location: 'postgres://vigil@db.internal:5433/reports',
      poolSize: 4,
    });
    assert.deepEqual(
      load({ PROFILER_DSN: 'postgresql://db.internal/reports?sslmode=require', PROFILER_POOL_SIZE: '8' }).profilerStore,
      {
        scheme: 'postgres',
        url: 'postgresql://db.internal/reports?sslmode=require',
        location: 'postgresql://db.internal/reports',
        poolSize: 8,
      },
    );
  });
  it('refuses another scheme naming only the scheme (a DSN may hold a password), and lists the supported ones', () => {
    assert.equal(
      refusal({ PROFILER_DSN: 'mysql://root:s3cret@localhost/x' }, 'PROFILER_DSN'),
      `PROFILER_DSN: the scheme "mysql:" is not supported; ${SUPPORTED}`,
    );
    assert.doesNotMatch(refusal({ PROFILER_DSN: 'redis://:s3cret@localhost/0' }, 'PROFILER_DSN'), /s3cret/);
  });
  it('refuses a PostgreSQL URL it cannot parse, or without a host or a database, without repeating it', () => {
    const FORM = 'the form is postgres://user:password@host:port/database';
    for (const dsn of [
      'postgres://vigil:s3cret@db.internal:99999/vigil',
      'postgres://vigil:s3cret@[db.internal/vigil',
      'postgresql://vigil:s3cret@db internal/vigil',
    ]) {
      assert.equal(
        refusal({ PROFILER_DSN: dsn }, 'PROFILER_DSN'),
        `PROFILER_DSN: not a valid PostgreSQL URL; ${FORM}`,
        dsn,
      );
    }
    assert.equal(
      refusal({ PROFILER_DSN: 'postgres:vigil:s3cret' }, 'PROFILER_DSN'),
      `PROFILER_DSN: the PostgreSQL URL has no host; ${FORM}`,
    );
    assert.equal(
      refusal({ PROFILER_DSN: 'postgres://vigil:s3cret@db.internal:5432' }, 'PROFILER_DSN'),
      `PROFILER_DSN: the PostgreSQL URL names no database; ${FORM}`,
    );
    assert.equal(
      refusal({ PROFILER_DSN: 'postgres://vigil:s3cret@db.internal/a%zzb' }, 'PROFILER_DSN'),
      `PROFILER_DSN: not a valid PostgreSQL URL; ${FORM}`,
    );
  });
  it('refuses a value without a scheme, and sqlite: without a path', () => {
    assert.equal(
      refusal({ PROFILER_DSN: 'var/profiler.sqlite' }, 'PROFILER_DSN'),
      `PROFILER_DSN: "var/profiler.sqlite" has no scheme; ${SUPPORTED}`,
    );
    assert.equal(
      refusal({ PROFILER_DSN: 'sqlite:' }, 'PROFILER_DSN'),
      'PROFILER_DSN: sqlite: needs the path of the SQLite file, e.g. sqlite:var/profiler.sqlite',
    );
  });
  it('never repeats a value without a scheme that may hold a password (a scheme with characters no scheme has, no scheme at all)', () => {
    for (const dsn of [
      'my_sql://root:s3cret@localhost/x',
      '//root:s3cret@db.internal/x',
      ':s3cret@db.internal/x',
      'db.internal/x?password=s3cret',
      'pg sql://root:s3cret@h/x',
    ]) {
      assert.equal(
        refusal({ PROFILER_DSN: dsn }, 'PROFILER_DSN'),
        `PROFILER_DSN: the value has no scheme; ${SUPPORTED}`,
        dsn,
      );
    }
  });
  it('takes PROFILER_POOL_SIZE from 1 to 100', () => {
    assert.equal(
      refusal({ PROFILER_POOL_SIZE: '0' }, 'PROFILER_POOL_SIZE'),
      'PROFILER_POOL_SIZE: "0" is not a whole number from 1 to 100',
    );
    assert.equal(
      refusal({ PROFILER_DSN: 'postgres://h/db', PROFILER_POOL_SIZE: 'many' }, 'PROFILER_POOL_SIZE'),
      'PROFILER_POOL_SIZE: "many" is not a whole number from 1 to 100',
    );
  });
});

describe('PROFILER_REDACT is comma-separated header or query names, lower-cased', () => {
  it('reads the names', () => {
    assert.deepEqual(load({ PROFILER_REDACT: 'X-Api-Key, token ,Session_ID' }).profilerRedact, [
      'x-api-key',
      'token',
      'session_id',
    ]);
  });
  it('refuses a name with a space, "=" or "&", and an empty one', () => {
    for (const name of ['a b', 'a=b', 'a&b', '']) {
      assert.equal(
        refusal({ PROFILER_REDACT: `token,${name}` }, 'PROFILER_REDACT'),
        `PROFILER_REDACT: "${name}" is not a header or query parameter name`,
      );
    }
  });
});

describe('the CORS settings are a case-insensitive origin pattern and lists of methods and header names', () => {
  it('compiles CORS_ALLOW_ORIGIN case-insensitively', () => {
    const { allowOrigin } = load({ CORS_ALLOW_ORIGIN: '^https://app\\.example\\.com$' }).cors;
    assert.equal(allowOrigin.source, '^https:\\/\\/app\\.example\\.com$');
    assert.equal(allowOrigin.flags, 'i');
  });
  it('refuses an origin pattern that is not a regular expression', () => {
    assert.match(
      refusal({ CORS_ALLOW_ORIGIN: '^(https://' }, 'CORS_ALLOW_ORIGIN'),
      /^CORS_ALLOW_ORIGIN: "\^\(https:\/\/" is not a valid regular expression: ./,
    );
  });
  it('upper-cases methods, lower-cases allowed headers, keeps exposed headers as written, skipping empty items', () => {
    const cors = load({
      CORS_ALLOW_METHODS: 'get, Post,,',
      CORS_ALLOW_HEADERS: 'X-Custom, Content-Type',
      CORS_EXPOSE_HEADERS: 'Link, X-Total-Count',
    }).cors;
    assert.deepEqual(
      [cors.allowMethods, cors.allowHeaders, cors.exposeHeaders],
      [
        ['GET', 'POST'],
        ['x-custom', 'content-type'],
        ['Link', 'X-Total-Count'],
      ],
    );
  });
  it('refuses a method that is not letters and a header name that is not a token', () => {
    assert.equal(
      refusal({ CORS_ALLOW_METHODS: 'GET, GE T' }, 'CORS_ALLOW_METHODS'),
      'CORS_ALLOW_METHODS: "GE T" is not a valid list item',
    );
    assert.equal(
      refusal({ CORS_ALLOW_METHODS: 'M-SEARCH' }, 'CORS_ALLOW_METHODS'),
      'CORS_ALLOW_METHODS: "M-SEARCH" is not a valid list item',
    );
    assert.equal(
      refusal({ CORS_ALLOW_HEADERS: 'x-a:b' }, 'CORS_ALLOW_HEADERS'),
      'CORS_ALLOW_HEADERS: "x-a:b" is not a valid list item',
    );
    assert.equal(
      refusal({ CORS_EXPOSE_HEADERS: 'x a' }, 'CORS_EXPOSE_HEADERS'),
      'CORS_EXPOSE_HEADERS: "x a" is not a valid list item',
    );
  });
});

describe('sizes use php.ini syntax: bytes, or K, M, G as powers of 1024 in either case', () => {
  it('reads each unit and keeps the text as written', () => {
    const cases: Array<[string, number]> = [
      ['123', 123],
      ['1k', 1024],
      ['1K', 1024],
      ['8M', 8_388_608],
      ['8m', 8_388_608],
      ['2G', 2_147_483_648],
    ];
    for (const [text, bytes] of cases)
      assert.deepEqual(load({ POST_MAX_SIZE: text }).postMaxSize, { bytes, text }, text);
  });
  it('refuses fractions, other units, signs and sizes past 2^53', () => {
    for (const text of ['1.5M', '10MB', '1T', '-1', 'M', '100 M', '9999999999G']) {
      assert.equal(
        refusal({ POST_MAX_SIZE: text }, 'POST_MAX_SIZE'),
        `POST_MAX_SIZE: "${text}" is not a size: use bytes or a number with K, M or G, e.g. 100M, or 0 for no limit`,
      );
    }
    assert.equal(
      refusal({ UPLOAD_MAX_FILESIZE: '1.5M' }, 'UPLOAD_MAX_FILESIZE'),
      'UPLOAD_MAX_FILESIZE: "1.5M" is not a size: use bytes or a number with K, M or G, e.g. 100M',
    );
  });
});

describe("php.ini's no-limit values: POST_MAX_SIZE=0, MEMORY_LIMIT=-1, MAX_EXECUTION_TIME=0", () => {
  it('reads them as no limit', () => {
    const config = load({ POST_MAX_SIZE: '0', MEMORY_LIMIT: '-1', MAX_EXECUTION_TIME: '0' });
    assert.deepEqual(
      [config.postMaxSize, config.memoryLimit, config.maxExecutionTime],
      [{ bytes: Infinity, text: '0' }, { bytes: Infinity, text: '-1' }, 0],
    );
  });
  it('has none for UPLOAD_MAX_FILESIZE, which is at least 1 byte', () => {
    assert.deepEqual(load({ UPLOAD_MAX_FILESIZE: '1' }).uploadMaxFilesize, { bytes: 1, text: '1' });
    assert.equal(
      refusal({ UPLOAD_MAX_FILESIZE: '0' }, 'UPLOAD_MAX_FILESIZE'),
      'UPLOAD_MAX_FILESIZE: "0" is below the minimum of 1 byte',
    );
    assert.equal(
      refusal({ UPLOAD_MAX_FILESIZE: '-1' }, 'UPLOAD_MAX_FILESIZE'),
      'UPLOAD_MAX_FILESIZE: "-1" is not a size: use bytes or a number with K, M or G, e.g. 100M',
    );
  });
  it('keeps MEMORY_LIMIT at 1M or more', () => {
    assert.deepEqual(load({ MEMORY_LIMIT: '1M' }).memoryLimit, { bytes: 1_048_576, text: '1M' });
    assert.deepEqual(load({ MEMORY_LIMIT: '1048576' }).memoryLimit, { bytes: 1_048_576, text: '1048576' });
    assert.equal(
      refusal({ MEMORY_LIMIT: '1023K' }, 'MEMORY_LIMIT'),
      'MEMORY_LIMIT: "1023K" is below the minimum of 1 MiB, or -1 for no limit',
    );
    assert.equal(
      refusal({ MEMORY_LIMIT: '0' }, 'MEMORY_LIMIT'),
      'MEMORY_LIMIT: "0" is below the minimum of 1 MiB, or -1 for no limit',
    );
  });
});

describe('VIGIL_IDE is an editor name or a link format with %f, of a scheme that runs no script', () => {
  it('resolves a known name to its format', () => {
    assert.deepEqual(load({ VIGIL_IDE: 'phpstorm' }).ide, { template: 'phpstorm://open?file=%f&line=%l', pathMap: [] });
    assert.deepEqual(load({ VIGIL_IDE: 'vscode' }).ide, { template: 'vscode://file/%f:%l', pathMap: [] });
  });
  it('keeps a format and its path mappings', () => {
    assert.deepEqual(load({ VIGIL_IDE: 'myide://open?file=%f&line=%l&/srv/>/home/ann/' }).ide, {
      template: 'myide://open?file=%f&line=%l',
      pathMap: [['/srv/', '/home/ann/']],
    });
  });
  it('refuses an unknown name, naming the known ones', () => {
    assert.equal(
      refusal({ VIGIL_IDE: 'notepad' }, 'VIGIL_IDE'),
      'VIGIL_IDE: "notepad" is not a known editor (atom, cursor, emacs, idea, macvim, phpstorm, sublime, textmate, vscode, vscode-insiders, webstorm) nor a link format with %f and %l, e.g. myide://open?file=%f&line=%l',
    );
  });
  it('refuses a format without %f, or without a scheme', () => {
    assert.match(
      refusal({ VIGIL_IDE: 'myide://open?line=%l' }, 'VIGIL_IDE'),
      /^VIGIL_IDE: "myide:\/\/open\?line=%l" is not a known editor/,
    );
    assert.match(refusal({ VIGIL_IDE: '%f:%l' }, 'VIGIL_IDE'), /^VIGIL_IDE: "%f:%l" is not a known editor/);
  });
  it('refuses the schemes that run script, in any case and however disguised', () => {
    for (const value of [
      'javascript:alert(%f,%l)',
      'JavaScript:alert(%f)',
      'data:text/html,%f',
      'vbscript:x(%f)',
      'java\tscript:alert(%f)',
      'java\nscript:x(%f)',
      ' javascript:x(%f)',
    ]) {
      const message = refusal({ VIGIL_IDE: value }, 'VIGIL_IDE');
      assert.ok(message.startsWith('VIGIL_IDE: '), message);
    }
    assert.equal(
      refusal({ VIGIL_IDE: 'javascript:alert(%f)' }, 'VIGIL_IDE'),
      'VIGIL_IDE: the scheme "javascript:" may run script in the page; use an editor\'s own scheme',
    );
  });
});

describe("a test runner's process keeps its reports apart", () => {
  it('stores them in the temporary directory under node --test, Vitest and Jest, unless VAR_DIR or PROFILER_DSN says where', () => {
    for (const runner of [{ NODE_TEST_CONTEXT: 'child-v8' }, { VITEST: 'true' }, { JEST_WORKER_ID: '1' }]) {
      const { profilerStore } = load(runner);
      assert.equal(profilerStore.scheme, 'sqlite');
      assert.equal(
        profilerStore.scheme === 'sqlite' && profilerStore.file,
        join(tmpdir(), `vigil-test-run-${process.pid}`, 'profiler.sqlite'),
      );
    }
    assert.deepEqual(load({ NODE_TEST_CONTEXT: 'child-v8', VAR_DIR: 'var' }).profilerStore, {
      scheme: 'sqlite',
      file: '/srv/app/var/profiler.sqlite',
    });
    assert.equal(
      load({ NODE_TEST_CONTEXT: 'child-v8', PROFILER_DSN: 'sqlite:x.sqlite' }).profilerStore.scheme,
      'sqlite',
    );
    assert.deepEqual(load({}).profilerStore, { scheme: 'sqlite', file: '/srv/app/var/profiler.sqlite' });
  });
});

describe('PROFILER_SECRET', () => {
  it('is unset by default, and kept as given from 32 characters', () => {
    assert.equal(load({}).profilerSecret, undefined);
    const secret = 's'.repeat(32);
    assert.equal(load({ PROFILER_SECRET: secret }).profilerSecret, secret);
  });

  it('refuses a shorter one, without repeating it', () => {
    const message = refusal({ PROFILER_SECRET: 'short-and-guessable' }, 'PROFILER_SECRET');
    assert.match(message, /at least 32/);
    assert.doesNotMatch(message, /guessable/);
  });
});
