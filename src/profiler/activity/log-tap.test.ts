import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogTap } from './log-tap.js';

const line = (id: string, msg: string) => `{"level":40,"reqId":"${id}","msg":"${msg}"}\n`;
const messages = (tap: LogTap, id: string) => tap.take(id).lines.map((kept) => JSON.parse(kept.text).msg as string);

describe('LogTap', () => {
  it('keeps the lines of a watched request only, until it has watched none', () => {
    const written: string[] = [];
    const tap = new LogTap({ write: (text) => written.push(text) });
    tap.watch('req-1');
    tap.write(line('req-1', 'one'));
    tap.write(line('req-2', 'two'));
    assert.deepEqual(messages(tap, 'req-1'), ['one']);
    assert.deepEqual(messages(tap, 'req-2'), []);
    assert.equal(written.length, 2);
    assert.equal(tap.watching, 0);
  });

  it("keeping every request's lines, files them from each request's first line, its watch included", () => {
    const tap = new LogTap({ write: () => true });
    tap.keepEveryRequest(true);
    tap.write(line('req-1', 'before the watch'));
    tap.watch('req-1').add('app', '{"msg":"through the scope"}');
    tap.write(line('req-2', 'never watched'));
    assert.deepEqual(messages(tap, 'req-1'), ['before the watch', 'through the scope']);
    tap.forget('req-2');
    assert.equal(tap.watching, 0);
  });

  it('lets go of the oldest request past its bound, and of everything once it stops', () => {
    const tap = new LogTap({ write: () => true });
    tap.keepEveryRequest(true);
    for (let i = 0; i <= 1000; i++) tap.write(line(`req-${i}`, `line ${i}`));
    assert.equal(tap.watching, 1000);
    assert.deepEqual(messages(tap, 'req-0'), []);
    assert.deepEqual(messages(tap, 'req-1000'), ['line 1000']);
    tap.keepEveryRequest(false);
    assert.equal(tap.watching, 0);
    tap.write(line('req-2000', 'after'));
    assert.equal(tap.watching, 0);
  });
});
