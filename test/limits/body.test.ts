/**
 * CONTRACT section 7, request body: POST_MAX_SIZE, against the real service with
 * POST_MAX_SIZE=1M (and PARSED_BODY_MAX_SIZE as high, so that it names JSON bodies too).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from 'node:tls';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';
import { sendStreaming } from '../support/streaming.js';
import { debugMessage } from '../support/answers.js';

const LIMIT = 1024 * 1024;
const service = serviceForTests(() =>
  startInProcess({
    ROUTES: 'test/fixtures/limit-routes.ts',
    POST_MAX_SIZE: '1M',
    PARSED_BODY_MAX_SIZE: '1M',
  }),
);

describe('a body up to POST_MAX_SIZE is read and parsed', () => {
  it('parses a text body of exactly the limit', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'text/plain' },
      body: 'a'.repeat(LIMIT),
    });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).length, LIMIT);
  });

  it('parses a chunked text body of exactly the limit', async () => {
    const answer = await sendStreaming(service(), { path: '/echo', total: LIMIT, chunked: true });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).length, LIMIT);
  });

  it('parses a JSON body just under the limit', async () => {
    const body = JSON.stringify({ text: 'j'.repeat(LIMIT - 20) });
    assert.ok(body.length <= LIMIT);
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).body.text.length, LIMIT - 20);
  });

  it('parses a form body, repeated names as lists', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=x%20y&b=3',
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body).body, { a: '1', b: ['x y', '3'] });
  });

  it('answers a body that is not JSON with a 400 through the pipeline', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{"broken',
    });
    assert.equal(answer.status, 400);
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });
});

describe('a Content-Length over POST_MAX_SIZE is a 413 before the body is read', () => {
  it("answers one byte over with 413, the kernel's message and the pipeline's headers", async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: 'a'.repeat(LIMIT + 1),
    });
    assert.equal(answer.status, 413);
    assert.equal(
      debugMessage(answer),
      `The request body (Content-Length: ${LIMIT + 1} bytes) is larger than POST_MAX_SIZE (1M)`,
    );
    assert.match(String(answer.headers['x-debug-exception-file']), /src%2Flimits%2Fbody-limit\.ts:\d+$/);
    assert.equal(JSON.parse(answer.body).exception.class, 'PayloadTooLargeHttpError');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.equal(answer.headers.connection, 'close');
  });

  it('answers before the client has sent its body, and the client reads the 413', async () => {
    const total = 64 * 1024 * 1024;
    const answer = await sendStreaming(service(), { path: '/echo', total });
    assert.equal(answer.status, 413);
    assert.ok(answer.sentWhenAnswered < total / 2, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
    assert.match(answer.body, /Error 413 Payload Too Large/);
  });

  it('sends the status line before reading a byte of the body', async () => {
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = connect(
        { host: 'localhost', port: service().port, ca: service().ca, servername: 'localhost' },
        () => {
          // Headers only: the body never comes, so only a refusal before reading can answer.
          socket.write(
            `POST /echo HTTP/1.1\r\nHost: localhost:${service().port}\r\nContent-Type: text/plain\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
          );
        },
      );
      let received = '';
      socket.on('data', (data: Buffer) => {
        received += data.toString('latin1');
        if (received.includes('\r\n')) {
          resolve(received.split('\r\n')[0]!);
          socket.destroy();
        }
      });
      socket.on('error', reject);
    });
    assert.equal(statusLine, 'HTTP/1.1 413 Payload Too Large');
  });
});

describe('a streamed body is cut at POST_MAX_SIZE with a 413', () => {
  it('answers a chunked body one byte over the limit with 413', async () => {
    const answer = await sendStreaming(service(), {
      path: '/echo',
      total: LIMIT + 1,
      chunked: true,
      headers: { accept: 'text/plain' },
    });
    assert.equal(answer.status, 413);
    assert.match(answer.body, /The request body is larger than POST_MAX_SIZE \(1M\)/);
    assert.match(answer.body, /PayloadTooLargeHttpError \(VIGIL_ERR_BODY_TOO_LARGE\)/);
  });

  it('answers as soon as a long chunked body passes the limit, and the client reads it', async () => {
    const total = 64 * 1024 * 1024;
    const answer = await sendStreaming(service(), { path: '/echo', total, chunked: true });
    assert.equal(answer.status, 413);
    assert.ok(answer.sentWhenAnswered < total / 2, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('goes on answering other requests afterwards', async () => {
    assert.equal((await ask(service(), { path: '/hello' })).status, 200);
  });
});

describe('the body limit applies to matched routes only', () => {
  it('answers an unrouted 2 MB POST with its 404', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/robots.txt',
      headers: { 'content-type': 'text/plain' },
      body: 'a'.repeat(2 * LIMIT),
    });
    assert.equal(answer.status, 404);
  });
});
