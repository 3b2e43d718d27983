/**
 * Issue 26, item 8: BODY_TIMEOUT counts the time between two bytes, so a body trickled a
 * byte at a time is never cut by it. BODY_MIN_RATE (500 bytes/s by default), as Apache's
 * mod_reqtimeout MinRate: a body that averages under it after its first 10 s gets 408.
 * The 10 s are the setting's, so these tests take about 12 s; they run side by side.
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
  // BODY_TIMEOUT well above the trickle's gaps: only the rate can cut it.
  service = await startInProcess({ ROUTES: 'test/fixtures/limit-routes.ts', BODY_TIMEOUT: '5s' });
});
after(async () => {
  for (const connection of connections) connection.socket.destroy();
  await service.stop();
});

/** Before the fix a trickled body is read to its end (40 s): the test fails here instead. */
const BOUND = { timeout: 25_000 };

/**
 * Sends the head, then `body` in pieces of `piece` bytes every `everyMs`, until the body is
 * sent or the service closes the connection; reads until closed. Returns the bytes sent too.
 */
async function sendPaced(
  path: string,
  contentType: string,
  body: Buffer,
  piece: number,
  everyMs: number,
): Promise<{ raw: string; sent: number }> {
  const connection = await openRaw(service);
  connections.push(connection);
  let closed = false;
  void connection.closed.then(() => (closed = true));
  connection.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost:${service.port}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nAccept: text/plain\r\nConnection: close\r\n\r\n`,
  );
  let sent = 0;
  while (sent < body.length && !closed) {
    connection.socket.write(body.subarray(sent, sent + piece));
    sent += piece;
    await sleep(everyMs);
  }
  await connection.closed;
  return { raw: connection.received(), sent: Math.min(sent, body.length) };
}

describe('a body that averages under BODY_MIN_RATE after its first 10 s is answered 408', { concurrency: true }, () => {
  it('cuts a text body trickled a byte a second, through the pipeline, and closes', BOUND, async () => {
    const body = Buffer.from('t'.repeat(40));
    const { raw, sent } = await sendPaced('/echo', 'text/plain', body, 1, 1000);
    assert.equal(statusLine(raw), 'HTTP/1.1 408 Request Timeout');
    assert.match(
      raw,
      /The request body came too slowly: under BODY_MIN_RATE \(500 bytes\/s\) on average after its first 10s/,
    );
    assert.match(raw, /RequestTimeoutHttpError \(VIGIL_ERR_BODY_TOO_SLOW\)/);
    assert.match(String(rawHeader(raw, 'x-debug-token')), /^[0-9a-f]{6}$/);
    assert.equal(rawHeader(raw, 'connection'), 'close');
    assert.ok(sent < body.length, `the whole body (${sent} bytes) was sent before the answer`);
  });

  it('cuts an upload trickled a byte a second', BOUND, async () => {
    const { contentType, body } = multipartBody([{ field: 'file', name: 'slow.bin', size: 64 }]);
    const { raw, sent } = await sendPaced('/upload', contentType, body, 1, 1000);
    assert.equal(statusLine(raw), 'HTTP/1.1 408 Request Timeout');
    assert.match(raw, /BODY_MIN_RATE \(500 bytes\/s\)/);
    assert.ok(sent < body.length, `the whole body (${sent} bytes) was sent before the answer`);
  });

  it(
    'reads a body sent for 12 s at 800 bytes/s, slower than BODY_TIMEOUT would ever notice but above the rate',
    BOUND,
    async () => {
      const body = Buffer.from('s'.repeat(48 * 200));
      const { raw, sent } = await sendPaced('/echo', 'text/plain', body, 200, 250);
      assert.equal(sent, body.length);
      assert.equal(statusLine(raw), 'HTTP/1.1 200 OK');
      assert.match(raw, new RegExp(`"length":${body.length}`));
    },
  );
});
