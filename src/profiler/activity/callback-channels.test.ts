import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { describe, it } from 'node:test';
import { currentScope, RequestScope, runInScope } from '../../http/request-scope.js';
import { CALLBACK_CHANNELS } from './callback-channels.js';
import { holdQueryChannels } from './query-channels.js';

/** Starts a traced call in `caller`, and calls its callback back from `other`'s code: the scope the callback saw. */
function scopeSeenBack(name: string, caller: RequestScope | undefined, other: RequestScope): RequestScope | undefined {
  let callBack: (() => void) | undefined;
  let seen: RequestScope | undefined;
  const call = () =>
    diagnosticsChannel.tracingChannel(name).traceCallback(
      (done: () => void) => {
        callBack = done;
      },
      0,
      { query: 'SELECT 1', values: [] },
      null,
      () => {
        seen = currentScope();
      },
    );
  if (caller === undefined) call();
  else runInScope(caller, call);
  runInScope(other, () => callBack!());
  return seen;
}

describe("a library's traced callbacks run in the request that made the call", () => {
  it('puts the caller back around the callback, on each channel, while held', () => {
    const release = holdQueryChannels();
    const [caller, other] = [new RequestScope(0), new RequestScope(0)];
    try {
      for (const name of CALLBACK_CHANNELS) {
        assert.equal(scopeSeenBack(name, caller, other), caller, name);
        // A call made outside any request calls back outside any.
        assert.equal(scopeSeenBack(name, undefined, other), undefined, name);
      }
    } finally {
      release();
    }
    // Let go: the callback runs where it is called from, and nothing is subscribed.
    for (const name of CALLBACK_CHANNELS) {
      assert.equal(scopeSeenBack(name, caller, other), other, name);
      assert.equal(diagnosticsChannel.tracingChannel(name).hasSubscribers, false, name);
    }
  });
});
