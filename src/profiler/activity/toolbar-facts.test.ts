import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestScope } from '../../http/request-scope.js';
import { watchActivity } from './request-activity.js';
import { databaseEntries, httpCallEntries } from './toolbar-facts.js';

const statement = { system: 'postgresql', start: 0, duration: 2, rows: null, site: null, error: false };
const call = {
  method: 'GET',
  start: 0,
  duration: 5,
  status: 200,
  requestSize: null,
  responseSize: null,
  error: null,
  site: null,
};

describe("the queries item's panel", () => {
  it('counts the statements, the different ones and their time, and names the one run most often', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    for (let id = 0; id < 5; id++) activity.addStatement({ ...statement, text: 'SELECT * FROM items WHERE id = $1' });
    activity.addStatement({ ...statement, text: 'SELECT 1' });
    const [entry] = databaseEntries(scope);
    assert.equal(entry!.tone, 'warn');
    assert.deepEqual(entry!.detail, [
      ['Statements', '6'],
      ['Different statements', '2'],
      ['Time in the database', '12.0 ms'],
      ['Ran 5 times', 'SELECT * FROM items WHERE id = $1'],
    ]);
  });
  it('names no statement when none ran twice, and cuts a long one', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    activity.addStatement({ ...statement, text: 'SELECT 1' });
    assert.equal(databaseEntries(scope)[0]!.detail!.length, 3);
    const long = `SELECT ${'x, '.repeat(100)}y`;
    activity.addStatement({ ...statement, text: long });
    activity.addStatement({ ...statement, text: long });
    const named = databaseEntries(scope)[0]!.detail![3]!;
    assert.equal(named[0], 'Ran 2 times');
    assert.ok(named[1].length < long.length && named[1].endsWith('…'), named[1]);
  });
});

describe("the calls item's panel", () => {
  it('lists the first calls without their query or credentials, which only the report redacts', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    activity.addCall({ ...call, url: 'https://ann:secret@api.example/v1/items?api_key=k-123' });
    activity.addCall({ ...call, url: 'http://127.0.0.1:9/down', status: null, error: 'ECONNREFUSED' });
    activity.addCall({ ...call, url: 'not a url?token=t', duration: null, status: null });
    const [entry] = httpCallEntries(scope);
    assert.deepEqual(entry!.detail, [
      ['GET https://api.example/v1/items?…', '200 in 5.00 ms'],
      ['GET http://127.0.0.1:9/down', 'failed in 5.00 ms'],
      ['GET not a url', 'pending in n/a'],
    ]);
    assert.doesNotMatch(JSON.stringify(entry), /secret|k-123|token=t/);
  });
  it('counts the calls beyond the first five', () => {
    const scope = new RequestScope(0);
    const activity = watchActivity(scope);
    for (let i = 0; i < 7; i++) activity.addCall({ ...call, url: `https://api.example/${i}` });
    const detail = httpCallEntries(scope)[0]!.detail!;
    assert.equal(detail.length, 6);
    assert.deepEqual(detail[5], ['More calls', '2']);
  });
});
