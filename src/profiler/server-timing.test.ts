import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverTiming } from './server-timing.js';

describe('serverTiming gives the stages reached, each until the next, the last until now', () => {
  it('times a routed request that failed in its handler', () => {
    assert.equal(
      serverTiming({ start: 10, parsing: 10.25, handler: 10.5, error: 12.0004, send: 12.5 }, 13, undefined),
      'routing;desc="Routing and hooks";dur=0.25, body;desc="Reading the body";dur=0.25, ' +
        'handler;desc="Handler";dur=1.5, rendering;desc="Error page";dur=1, total;desc="Total";dur=3',
    );
  });

  it('skips the stages an unrouted request never reached', () => {
    assert.equal(
      serverTiming({ start: 1, error: 1.5 }, 2, undefined),
      'routing;desc="Routing and hooks";dur=0.5, rendering;desc="Error page";dur=0.5, total;desc="Total";dur=1',
    );
  });

  it('gives the routing stage alone the whole time of an answer with no later mark', () => {
    assert.equal(
      serverTiming({ start: 1 }, 1.1234567, undefined),
      'routing;desc="Routing and hooks";dur=0.123, total;desc="Total";dur=0.123',
    );
  });
});
