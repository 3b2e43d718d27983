import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BODY_HEAD_BYTES, headerRecord, newExchange, takeChunk } from './call-exchange.js';

describe("a call's response body: every byte counted, the first ones kept", () => {
  it(`keeps ${BODY_HEAD_BYTES} bytes at most, as copies, and counts the rest`, () => {
    const exchange = newExchange();
    const socketBuffer = Buffer.alloc(64 * 1024, 0x61);
    takeChunk(exchange, socketBuffer.subarray(0, 3000));
    takeChunk(exchange, socketBuffer.subarray(3000, 6000));
    takeChunk(exchange, socketBuffer.subarray(6000, 9000));
    takeChunk(exchange, 'é');
    assert.equal(exchange.received, 9002);
    assert.equal(exchange.headBytes, BODY_HEAD_BYTES);
    assert.equal(Buffer.concat(exchange.head).length, BODY_HEAD_BYTES);
    // Copies: the socket's buffer is not held.
    for (const kept of exchange.head) assert.notEqual(kept.buffer, socketBuffer.buffer);
  });

  it('ignores what is no chunk', () => {
    const exchange = newExchange();
    for (const chunk of [undefined, null, 42, {}]) takeChunk(exchange, chunk);
    takeChunk(exchange, Buffer.alloc(0));
    assert.deepEqual([exchange.received, exchange.head.length], [0, 0]);
  });
});

describe('headers as each client holds them, by lower-case name', () => {
  it("reads undici's flat list, text or bytes, a repeated header in a list", () => {
    assert.deepEqual(
      headerRecord([
        Buffer.from('Content-Type'),
        Buffer.from('text/plain'),
        'set-cookie',
        'a=1',
        'Set-Cookie',
        'b=2',
        '__proto__',
        '[1]',
        '__proto__',
        '[2]',
        'odd',
      ]),
      { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] },
    );
  });

  it("reads an older undici's header text and node:http's object", () => {
    assert.deepEqual(headerRecord('Accept: */*\r\nX-A: 1\r\nbroken\r\n'), { accept: '*/*', 'x-a': '1' });
    assert.deepEqual(headerRecord({ Host: 'h', 'x-n': 2, 'x-list': ['a', 'b'], gone: undefined }), {
      host: 'h',
      'x-n': '2',
      'x-list': ['a', 'b'],
    });
    assert.deepEqual(headerRecord(undefined), {});
  });
});
