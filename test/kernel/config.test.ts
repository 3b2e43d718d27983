/** CONTRACT section 1: configuration from the environment and .env, checked once at start. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, environment, loadConfig } from '../../src/config/index.js';
import { lineOf } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, ROOT, runMain } from '../support/service.js';

describe('a bad setting stops the start with one line naming the variable', () => {
  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['APP_ENV', 'staging'],
    ['APP_DEBUG', 'maybe'],
    ['TRUSTED_PROXIES', '10.0.0.0/99'],
    ['ROUTES', 'no/such/routes.ts'],
    ['WORKERS', '0'],
    ['WORKERS', 'abc'],
  ] as const) {
    it(`${name}=${value}`, async () => {
      const result = await runMain({ [name]: value, VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-config-')) });
      assert.equal(result.code, 1);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, new RegExp(`^vigil: cannot start: ${name}: `));
    });
  }

  it('ROUTES importing a package that is not installed names the package', async () => {
    const file = join(ROOT, 'test/fixtures/missing-package-routes.ts');
    const result = await runMain({ ROUTES: file, VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-config-')) });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `vigil: cannot start: ROUTES: cannot load ${file}: it imports the package "vigil-test-package-not-installed", which is not installed (imported from ${file}; npm install vigil-test-package-not-installed)\n`,
    );
  });

  it('ROUTES that does not exist is named as missing', async () => {
    const result = await runMain({
      ROUTES: 'no/such/routes.ts',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-config-')),
    });
    assert.equal(
      result.stderr,
      `vigil: cannot start: ROUTES: cannot load ${join(ROOT, 'no/such/routes.ts')}: the file does not exist\n`,
    );
  });

  it("two routes the router cannot tell apart are named in vigil's syntax, with where each was declared", async () => {
    const file = join(ROOT, 'test/fixtures/clashing-routes.ts');
    const result = await runMain({ ROUTES: file, VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-config-')) });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `vigil: cannot start: route GET /b/{y} (${file}:${lineOf(file, "'/b/{y}'")}): the router cannot tell it from route "GET /b/{x}" (${file}:${lineOf(file, "'/b/{x}'")}): their paths differ only in parameter names\n`,
    );
  });

  it('TLS_CERT without TLS_KEY', () => {
    assert.throws(
      () => loadConfig({ TLS_CERT: 'cert.pem' }, '/srv'),
      (error: unknown) => error instanceof ConfigError && error.variable === 'TLS_KEY',
    );
  });
});

describe('settings come from the environment over an optional .env file', () => {
  it('reads .env and lets real variables win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-env-'));
    writeFileSync(join(dir, '.env'), 'APP_ENV=prod\nPORT=9443\n');
    const config = loadConfig(environment(dir, { PORT: '7443' }), dir);
    assert.equal(config.appEnv, 'prod');
    assert.equal(config.debug, false);
    assert.equal(config.port, 7443);
    assert.equal(config.varDir, join(dir, 'var'));
  });

  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    assert.deepEqual(
      {
        appEnv: config.appEnv,
        debug: config.debug,
        host: config.host,
        port: config.port,
        tls: config.tls,
        varDir: config.varDir,
      },
      { appEnv: 'dev', debug: true, host: 'localhost', port: 8443, tls: true, varDir: '/srv/app/var' },
    );
  });

  it('prints the settings with --help', async () => {
    const result = await runMain({}, ['--help']);
    assert.equal(result.code, 0);
    for (const name of [
      'APP_ENV',
      'APP_DEBUG',
      'HOST',
      'PORT',
      'VAR_DIR',
      'PROFILER_DSN',
      'ROUTES',
      'TLS_CERT',
      'TRUSTED_PROXIES',
      'VIGIL_IDE',
    ])
      assert.ok(result.stdout.includes(name), name);
    // Its own line, not only inside ISOLATED_WORKERS.
    assert.match(result.stdout, /^ {2}WORKERS +\S/m);
  });
});

describe('HTTPS with a self-signed localhost certificate created once and reused', () => {
  it('creates the certificate on first start and reuses it on the next', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-cert-'));
    const first = await startInProcess({ VAR_DIR: varDir }, { ownCertificate: true });
    const certificate = readFileSync(join(varDir, 'tls', 'localhost.crt'), 'utf8');
    assert.equal(
      (await ask(first, { path: '/robots.txt' })).status,
      404,
      'the client verified the certificate for localhost',
    );
    await first.stop();
    const second = await startInProcess({ VAR_DIR: varDir }, { ownCertificate: true });
    assert.equal(readFileSync(join(varDir, 'tls', 'localhost.crt'), 'utf8'), certificate);
    assert.equal((await ask(second, { path: '/robots.txt' })).status, 404);
    await second.stop();
  });
});

describe('behind a proxy, scheme and host come from X-Forwarded-* only for trusted peers', () => {
  // The client is on the proxy's machine: one that may see the debug headers these tests read.
  const forwarded = {
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'api.example.com',
    'x-forwarded-for': '127.0.0.1',
  };

  it('believes a trusted proxy', async () => {
    const service = await startInProcess({ TLS: '0', TRUSTED_PROXIES: '127.0.0.1,::1' });
    try {
      const answer = await ask(service, { path: '/robots.txt', headers: forwarded });
      assert.equal(
        decodeURIComponent(String(answer.headers['x-debug-exception'])),
        'No route found for "GET https://api.example.com/robots.txt"',
      );
      assert.equal(
        answer.headers['x-debug-token-link'],
        `https://api.example.com/_profiler/${answer.headers['x-debug-token']}`,
      );
    } finally {
      await service.stop();
    }
  });

  it('ignores the headers from anyone else', async () => {
    const service = await startInProcess({ TLS: '0' });
    try {
      const answer = await ask(service, { path: '/robots.txt', headers: forwarded });
      assert.equal(
        decodeURIComponent(String(answer.headers['x-debug-exception'])),
        `No route found for "GET http://localhost:${service.port}/robots.txt"`,
      );
    } finally {
      await service.stop();
    }
  });
});
