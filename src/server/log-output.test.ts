import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prettyLogOutput, terminalSafeJson } from './log-output.js';

describe('terminalSafeJson keeps control characters out of a pretty terminal', () => {
  const parsed = (value: string) =>
    (JSON.parse(terminalSafeJson(JSON.stringify({ msg: value }))) as { msg: string }).msg;
  it('turns escape sequences and C1 controls into their text', () => {
    assert.equal(parsed('GET /\u001b[2J'), 'GET /\\u001b[2J');
    assert.equal(parsed('a\u0007b\u007f\u009bc'), 'a\\u0007b\\u007f\\u009bc');
  });
  it('turns bidi controls into their text', () => {
    assert.equal(parsed('paid \u202eevil\u2066'), 'paid \\u202eevil\\u2066');
  });
  it('leaves text, escaped backslashes and newlines as they were', () => {
    assert.equal(parsed('C:\\u001b is a path'), 'C:\\u001b is a path');
    assert.equal(parsed('two\nlines, "quoted", café'), 'two\nlines, "quoted", café');
  });
});

describe('prettyLogOutput is for a terminal in debug mode only', () => {
  it('gives pino JSON (undefined) to a pipe, and in production', async () => {
    assert.equal(await prettyLogOutput({ debug: true }, { isTTY: false, fd: 1 }), undefined);
    assert.equal(await prettyLogOutput({ debug: false }, { isTTY: true, fd: 1 }), undefined);
    assert.equal(typeof (await prettyLogOutput({ debug: true }, { isTTY: true, fd: 1 }))?.write, 'function');
  });
});
