import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { describe, it } from 'node:test';
import { RequestScope, runInScope } from '../../http/request-scope.js';
import { holdQueryChannels } from './query-channels.js';
import { MAX_CALLS, MAX_STATEMENT_LENGTH, MAX_STATEMENTS, RequestActivity, watchActivity } from './request-activity.js';

const call = {
  method: 'GET',
  url: 'http://x/',
  start: 0,
  duration: 1,
  status: 200,
  requestSize: null,
  responseSize: null,
  error: null,
  site: null,
};
const statement = {
  text: 'SELECT 1',
  system: 'postgresql',
  start: 0,
  duration: 1,
  rows: null,
  site: null,
  error: false,
};

describe('a report keeps at most 1,000 calls and 1,000 statements, each at most 10 KB, and counts the rest', () => {
  it('counts the calls and statements over the bound', () => {
    const activity = new RequestActivity(new RequestScope(0));
    for (let i = 0; i < MAX_CALLS + 7; i++) activity.addCall({ ...call });
    for (let i = 0; i < MAX_STATEMENTS + 3; i++) activity.addStatement({ ...statement });
    assert.equal(activity.calls.length, 1000);
    assert.equal(activity.callsOmitted, 7);
    assert.equal(activity.statements.length, 1000);
    assert.equal(activity.statementsOmitted, 3);
  });

  it('cuts a statement at 10 KB, saying how much was cut', () => {
    const activity = new RequestActivity(new RequestScope(0));
    activity.addStatement({ ...statement, text: `SELECT '${'x'.repeat(20_000)}'` });
    const text = activity.statements[0]!.text;
    assert.ok(text.startsWith(`SELECT '${'x'.repeat(100)}`));
    assert.equal(text.slice(0, MAX_STATEMENT_LENGTH), `SELECT '${'x'.repeat(20_000)}'`.slice(0, MAX_STATEMENT_LENGTH));
    assert.ok(text.endsWith('…[cut 9,769 characters]'), text.slice(-40));
  });
});

describe('a library publishing a query TracingChannel is seen with no OpenTelemetry', () => {
  it('files a mysql2:query statement under the request that ran it, text only', async () => {
    const release = holdQueryChannels();
    try {
      const scope = new RequestScope(performance.now());
      const activity = watchActivity(scope);
      const channel = diagnosticsChannel.tracingChannel('mysql2:query');
      await runInScope(scope, () =>
        channel.tracePromise(async () => [[{ id: 1 }, { id: 2 }]], {
          query: 'SELECT id FROM t WHERE a = ?',
          values: ['secret-value'],
        }),
      );
      // Outside any request: not filed.
      await channel.tracePromise(async () => [[]], { query: 'SELECT 2', values: [] });
      assert.equal(activity.statements.length, 1);
      assert.equal(activity.statements[0]!.text, 'SELECT id FROM t WHERE a = ?');
      assert.equal(activity.statements[0]!.system, 'mysql');
      assert.equal(activity.statements[0]!.rows, 2);
      assert.doesNotMatch(JSON.stringify(activity.statements), /secret-value/);
    } finally {
      release();
    }
    assert.equal(diagnosticsChannel.tracingChannel('mysql2:query').hasSubscribers, false);
  });
});
