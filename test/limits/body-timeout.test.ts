/**
 * Issue 10, item 4: a client that sends no byte of its body for BODY_TIMEOUT is answered
 * 408 through the pipeline and its connection is closed (nginx's client_body_timeout).
 * The service runs with BODY_TIMEOUT=1s; a body that keeps coming is never cut.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openRaw, rawHeader, statusLine, type RawConnection } from '../support/raw-tls.js';
import { startInProcess } from '../support/in-process-service.js';
import type { Service } from '../support/service.js';
import { multipartBody } from '../support/streaming.js';

let service: Service;
const connections: RawConnection[] = [];
before(async () => {
  service = await startInProcess({ ROUTES: 'test/fixtures/limit-routes.ts', BODY_TIMEOUT: '1s' });
});
after(async () => {
  for (const connection of connections) connection.socket.destroy();
  await service.stop();
});

async function open(): Promise<RawConnection> {
  const connection = await openRaw(service);
  connections.push(connection);
  return connection;
}

/** Before the fix nothing ever answers: the test fails here instead of waiting for ever. */
const BOUND = { timeout: 20_000 };

/** Sends the head and the first `sent` bytes of a body of `length`, then nothing more; reads until closed. */
async function stallBody(path: string, contentType: string, body: Buffer, sent: number): Promise<string> {
  const connection = await open();
  connection.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost:${service.port}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nAccept: text/plain\r\n\r\n`,
  );
  connection.socket.write(body.subarray(0, sent));
  await connection.closed;
  return connection.received();
}

describe('a body that stalls for BODY_TIMEOUT is answered 408 and closed', () => {
  const bodies: Array<[string, string, string]> = [
    ['JSON', 'application/json', '{"name": "a value that never ends"}'],
    ['form', 'application/x-www-form-urlencoded', 'a=1&b=2&c=3'],
    ['text', 'text/plain', 'some text that stops half way'],
  ];
  for (const [kind, contentType, text] of bodies) {
    it(`answers a stalled ${kind} body with 408 through the pipeline, then closes`, BOUND, async () => {
      const raw = await stallBody('/echo', contentType, Buffer.from(text), 5);
      assert.equal(statusLine(raw), 'HTTP/1.1 408 Request Timeout');
      assert.match(raw, /The request body stalled: no byte came for BODY_TIMEOUT \(1s\)/);
      assert.match(raw, /RequestTimeoutHttpError \(VIGIL_ERR_BODY_TIMEOUT\)/);
      assert.match(String(rawHeader(raw, 'x-debug-token')), /^[0-9a-f]{6}$/);
      assert.equal(rawHeader(raw, 'cache-control'), 'no-cache, private');
      assert.equal(rawHeader(raw, 'connection'), 'close');
    });
  }

  it('answers an upload that stalls in the middle of a file with 408, then closes', BOUND, async () => {
    const { contentType, body } = multipartBody([{ field: 'file', name: 'half.bin', size: 256 * 1024 }]);
    const raw = await stallBody('/upload', contentType, body, 100 * 1024);
    assert.equal(statusLine(raw), 'HTTP/1.1 408 Request Timeout');
    assert.match(raw, /BODY_TIMEOUT \(1s\)/);
  });

  it('answers a body that never sends its first byte with 408', BOUND, async () => {
    const raw = await stallBody('/echo', 'application/json', Buffer.from('{}'), 0);
    assert.equal(statusLine(raw), 'HTTP/1.1 408 Request Timeout');
  });
});

describe('a body that keeps coming is never cut', () => {
  it('reads a body sent a byte every 300 ms, slower in all than BODY_TIMEOUT', async () => {
    const body = 'a=123456789';
    const connection = await open();
    connection.socket.write(
      `POST /echo HTTP/1.1\r\nHost: localhost:${service.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (const byte of body) {
      connection.socket.write(byte);
      await sleep(300);
    }
    await connection.closed;
    assert.equal(statusLine(connection.received()), 'HTTP/1.1 200 OK');
    assert.match(connection.received(), /"a":"123456789"/);
  });
});
