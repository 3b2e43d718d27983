/**
 * Issue 10, items 3, 4 and 9, and issue 26, item 8 (BODY_MIN_RATE): the settings that bound parsed bodies, slow clients,
 * connections and shutdown have safe defaults, are validated at start and are listed
 * in --help.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, STANDALONE_PARSED_BODY_MAX_SIZE } from '../../src/config/index.js';
import { runMain } from '../support/service.js';

const load = (env: Record<string, string>) => loadConfig(env, '/tmp');

describe('the defaults', () => {
  it('parses JSON and form bodies up to 512K, waits 60 s for a body byte, 10 s for a handshake, 30 s at shutdown, and admits 10,000 connections', () => {
    const config = load({});
    // Not set: the standalone service takes its own default (the plugin, Fastify's).
    assert.equal(config.parsedBodyMaxSize, undefined);
    assert.deepEqual(STANDALONE_PARSED_BODY_MAX_SIZE, { bytes: 512 * 1024, text: '512K' });
    assert.equal(config.bodyTimeoutMs, 60_000);
    assert.equal(config.bodyMinRate, 500);
    assert.equal(config.handshakeTimeoutMs, 10_000);
    assert.equal(config.shutdownTimeoutMs, 30_000);
    assert.equal(config.maxConnections, 10_000);
  });
});

describe('values an operator writes', () => {
  it('reads sizes in php.ini syntax and durations with units', () => {
    const config = load({
      PARSED_BODY_MAX_SIZE: '4M',
      BODY_TIMEOUT: '2m',
      HANDSHAKE_TIMEOUT: '5',
      SHUTDOWN_TIMEOUT: '90s',
      MAX_CONNECTIONS: '250',
      BODY_MIN_RATE: '2000',
    });
    assert.equal(config.parsedBodyMaxSize?.bytes, 4 * 1024 * 1024);
    assert.equal(config.bodyTimeoutMs, 120_000);
    assert.equal(config.handshakeTimeoutMs, 5000);
    assert.equal(config.shutdownTimeoutMs, 90_000);
    assert.equal(config.maxConnections, 250);
    assert.equal(config.bodyMinRate, 2000);
  });

  it('takes 0 as no limit for PARSED_BODY_MAX_SIZE, BODY_TIMEOUT, BODY_MIN_RATE and MAX_CONNECTIONS', () => {
    const config = load({ PARSED_BODY_MAX_SIZE: '0', BODY_TIMEOUT: '0', BODY_MIN_RATE: '0', MAX_CONNECTIONS: '0' });
    assert.equal(config.bodyMinRate, 0);
    assert.equal(config.parsedBodyMaxSize?.bytes, Infinity);
    assert.equal(config.bodyTimeoutMs, 0);
    assert.equal(config.maxConnections, Infinity);
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'PARSED_BODY_MAX_SIZE',
      '1.5M',
      /^PARSED_BODY_MAX_SIZE: "1.5M" is not a size: use bytes or a number with K, M or G, e.g. 100M, or 0 for no limit$/,
    ],
    [
      'BODY_TIMEOUT',
      '-1',
      /^BODY_TIMEOUT: "-1" is not a duration from 1s to 24d \(a number of seconds, or with a unit: 90s, 30m, 48h, 2d\), or 0 for none$/,
    ],
    ['BODY_TIMEOUT', '30d', /^BODY_TIMEOUT: "30d" is not a duration from 1s to 24d/],
    ['BODY_MIN_RATE', '-1', /^BODY_MIN_RATE: "-1" is not a whole number from 0 to 1073741824$/],
    ['BODY_MIN_RATE', '1.5K', /^BODY_MIN_RATE: "1.5K" is not a whole number/],
    [
      'HANDSHAKE_TIMEOUT',
      '0',
      /^HANDSHAKE_TIMEOUT: "0" is not a duration from 1s to 24d \(a number of seconds, or with a unit: 90s, 30m, 48h, 2d\)$/,
    ],
    ['SHUTDOWN_TIMEOUT', 'soon', /^SHUTDOWN_TIMEOUT: "soon" is not a duration/],
    ['MAX_CONNECTIONS', '-5', /^MAX_CONNECTIONS: "-5" is not a whole number from 0 to 1000000$/],
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

describe('--help lists them', () => {
  it('names each setting with its default', async () => {
    const { code, stdout: wrapped } = await runMain({}, ['--help']);
    assert.equal(code, 0);
    // A long description goes on under its own column: read as one line.
    const stdout = wrapped.replace(/\n {20,}/g, ' ');
    for (const line of [
      /PARSED_BODY_MAX_SIZE +.*\(512K; 0: /,
      /BODY_TIMEOUT +.*\(60s; 0: /,
      /BODY_MIN_RATE +.*\(500; 0: /,
      /HANDSHAKE_TIMEOUT +.*\(10s\)/,
      /MAX_CONNECTIONS +.*\(10000; 0: /,
      /SHUTDOWN_TIMEOUT +.*\(30s\)/,
      /PROFILER_KEEP +.*\(all in debug mode, none in production\)/,
      /PROFILER_KEEP_MAX_PER_SECOND +.*\(10\)/,
    ]) {
      assert.match(stdout, line);
    }
  });
});
