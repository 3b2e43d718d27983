import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startupBanner } from './startup-banner.js';

const NO_KEEP = { profilerKeep: [], profilerSample: 0, profilerSlowRequestMs: 1000 };

describe('the startup banner says where, in which mode, which routes, and where the profiler is', () => {
  it('in debug mode', () => {
    const banner = startupBanner(
      {
        appEnv: 'dev',
        debug: true,
        modeReason: 'APP_ENV not set, NODE_ENV not production',
        routes: '/srv/app/routes.ts',
        profilerSecret: undefined,
        profilerKeep: [],
        profilerSample: 0,
        profilerSlowRequestMs: 1000,
      },
      { url: 'https://localhost:8443', routeCount: 8, store: '/srv/var/profiler.sqlite' },
    );
    assert.equal(
      banner,
      'vigil listening on https://localhost:8443 (dev, debug on: APP_ENV not set, NODE_ENV not production)\n' +
        '  routes:   /srv/app/routes.ts (8 routes)\n' +
        '  profiler: https://localhost:8443/_profiler (reports in /srv/var/profiler.sqlite)\n',
    );
  });
  it('in production, without a routes module', () => {
    const banner = startupBanner(
      {
        appEnv: 'prod',
        debug: false,
        modeReason: 'NODE_ENV=production, APP_ENV not set',
        routes: undefined,
        profilerSecret: undefined,
        profilerKeep: [],
        profilerSample: 0,
        profilerSlowRequestMs: 1000,
      },
      { url: 'http://0.0.0.0:8080', routeCount: 0, store: undefined },
    );
    assert.equal(
      banner,
      'vigil listening on http://0.0.0.0:8080 (prod, debug off: NODE_ENV=production, APP_ENV not set)\n  routes:   none (ROUTES names no module)\n  profiler: off (debug is off)\n',
    );
  });
  it('in production, with PROFILER_SECRET, without showing it', () => {
    const secret = 's'.repeat(32);
    const banner = startupBanner(
      {
        appEnv: 'prod',
        debug: false,
        modeReason: 'APP_ENV=prod',
        routes: undefined,
        profilerSecret: secret,
        ...NO_KEEP,
      },
      { url: 'https://example.com', routeCount: 0, store: undefined },
    );
    assert.match(
      banner,
      /profiler: https:\/\/example\.com\/_profiler, to a bearer of PROFILER_SECRET or its login page\n$/,
    );
    assert.ok(!banner.includes(secret));
  });
  it('in production keeping errors and slow requests, read on the command line', () => {
    const banner = startupBanner(
      {
        appEnv: 'prod',
        debug: false,
        modeReason: 'APP_ENV=prod',
        routes: undefined,
        profilerSecret: undefined,
        profilerKeep: ['errors', 'slow'],
        profilerSample: 0.05,
        profilerSlowRequestMs: 250,
      },
      { url: 'https://example.com', routeCount: 0, store: '/srv/var/profiler.sqlite' },
    );
    assert.match(
      banner,
      /profiler: reports of errors, requests over 250 ms and 5 % of the rest kept in \/srv\/var\/profiler\.sqlite; read them with vigil profiler:list\n$/,
    );
  });
  it('counts one route in the singular', () => {
    assert.match(
      startupBanner(
        {
          appEnv: 'dev',
          debug: true,
          modeReason: 'APP_ENV=dev',
          routes: 'r.ts',
          profilerSecret: undefined,
          ...NO_KEEP,
        },
        { url: 'u', routeCount: 1, store: 's' },
      ),
      /\(1 route\)/,
    );
  });
});
