/**
 * Issue 10, items 2 and 3: bodies the kernel parses (JSON, forms) are parsed in linear
 * time and only up to PARSED_BODY_MAX_SIZE (512K by default), so that no parse holds the
 * event loop or the memory; POST_MAX_SIZE (100M) still applies to uploads. Issue 26, item 7:
 * text bodies are held under PARSED_BODY_MAX_SIZE as well.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';
import { multipartBody, sendStreaming } from '../support/streaming.js';

const MB = 1024 * 1024;
const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/limit-routes.ts' }));

const message = (answer: { headers: Record<string, unknown> }) =>
  decodeURIComponent(String(answer.headers['x-debug-exception']));
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const json = { 'content-type': 'application/json' };
/** `[{},{},...]` of about `bytes` bytes: the most objects per byte. */
const emptyObjects = (bytes: number) => `[${'{},'.repeat(Math.floor(bytes / 3) - 1)}{}]`;

describe('a form body is parsed in linear time, repeated names as one list in order', () => {
  it('answers a body of 40,000 "a=&" with one list of 40,000 values', async () => {
    const answer = await ask(service(), { method: 'POST', path: '/echo', headers: form, body: 'a=&'.repeat(40_000) });
    assert.equal(answer.status, 200);
    const values = JSON.parse(answer.body).body.a as string[];
    assert.equal(values.length, 40_000);
    assert.ok(values.every((value) => value === ''));
  });

  it('keeps the order of values across names given in turns', async () => {
    const body = Array.from({ length: 30_000 }, (_, i) => `${i % 2 ? 'b' : 'a'}=${i}`).join('&');
    const answer = await ask(service(), { method: 'POST', path: '/echo', headers: form, body });
    const { a, b } = JSON.parse(answer.body).body as { a: string[]; b: string[] };
    assert.deepEqual(a.slice(0, 3), ['0', '2', '4']);
    assert.deepEqual(b.slice(-2), ['29997', '29999']);
    assert.equal(a.length + b.length, 30_000);
  });
});

describe('a JSON or form body over PARSED_BODY_MAX_SIZE is a 413 that names the setting', () => {
  it('refuses a declared 2 MB JSON body before reading it, through the pipeline', async () => {
    const body = emptyObjects(2 * MB);
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { ...json, accept: 'application/json' },
      body,
    });
    assert.equal(answer.status, 413);
    assert.equal(
      message(answer),
      `The request body (Content-Length: ${body.length} bytes) is larger than PARSED_BODY_MAX_SIZE (512K), the limit for JSON, form and text bodies`,
    );
    assert.equal(JSON.parse(answer.body).exception.class, 'PayloadTooLargeHttpError');
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    assert.equal(answer.headers.connection, 'close');
  });

  it('cuts a chunked JSON body where it passes the limit', async () => {
    const total = 32 * MB;
    const answer = await sendStreaming(service(), {
      path: '/echo',
      total,
      chunked: true,
      headers: { ...json, accept: 'text/plain' },
      piece: (_offset, size) => Buffer.alloc(size, '{},'),
    });
    assert.equal(answer.status, 413);
    assert.match(
      answer.body,
      /The request body is larger than PARSED_BODY_MAX_SIZE \(512K\), the limit for JSON, form and text bodies/,
    );
    assert.ok(answer.sentWhenAnswered < total / 2, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('refuses a 2 MB form body the same way', async () => {
    const answer = await ask(service(), { method: 'POST', path: '/echo', headers: form, body: 'a=&'.repeat(700_000) });
    assert.equal(answer.status, 413);
    assert.match(message(answer), /is larger than PARSED_BODY_MAX_SIZE \(512K\)/);
  });

  it('still parses a JSON body just under the limit', async () => {
    const body = emptyObjects(MB / 2 - 3);
    const answer = await ask(service(), { method: 'POST', path: '/echo', headers: json, body });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).body.length, Math.floor((MB / 2 - 3) / 3));
  });
});

describe('a JSON body nested deeper than 1,000 levels is a 400 that names the bound', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  for (const path of ['/echo', '/isolated-upload']) {
    for (const depth of [1_001, 10_000, 100_000]) {
      it(`refuses ${depth} levels sent to ${path}, through the pipeline`, async () => {
        const answer = await ask(service(), {
          method: 'POST',
          path,
          headers: { ...json, accept: 'application/json' },
          body: nested(depth),
        });
        assert.equal(answer.status, 400);
        assert.equal(
          message(answer),
          'The JSON body is nested more than 1000 levels deep (the limit for parsed bodies)',
        );
        assert.equal(JSON.parse(answer.body).exception.class, 'BadRequestHttpError');
        assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
      });
    }

    it(`parses 1,000 levels sent to ${path}, and brackets inside strings do not count`, async () => {
      const answer = await ask(service(), {
        method: 'POST',
        path,
        headers: json,
        body: `[${nested(999)}, "${'['.repeat(5_000)}\\"{"]`,
      });
      assert.equal(answer.status, 200, answer.body.slice(0, 300));
    });
  }
});

describe('a text body is held under PARSED_BODY_MAX_SIZE too (issue 26, item 7)', () => {
  it('refuses a declared 8 MB text body with 413 before the client has sent it, through the pipeline', async () => {
    const total = 8 * MB;
    const answer = await sendStreaming(service(), { path: '/echo', total, headers: { accept: 'application/json' } });
    assert.equal(answer.status, 413);
    assert.equal(
      message(answer),
      `The request body (Content-Length: ${total} bytes) is larger than PARSED_BODY_MAX_SIZE (512K), the limit for JSON, form and text bodies`,
    );
    assert.equal(JSON.parse(answer.body).exception.class, 'PayloadTooLargeHttpError');
    assert.equal(answer.headers.connection, 'close');
    assert.ok(answer.sentWhenAnswered < total / 2, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('cuts a chunked text body where it passes the limit, long before its end', async () => {
    const total = 32 * MB;
    const answer = await sendStreaming(service(), {
      path: '/echo',
      total,
      chunked: true,
      headers: { accept: 'text/plain' },
    });
    assert.equal(answer.status, 413);
    assert.match(
      answer.body,
      /The request body is larger than PARSED_BODY_MAX_SIZE \(512K\), the limit for JSON, form and text bodies/,
    );
    assert.match(answer.body, /PayloadTooLargeHttpError \(VIGIL_ERR_BODY_TOO_LARGE\)/);
    assert.ok(answer.sentWhenAnswered < total / 4, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('still reads a text body of exactly the limit', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'text/plain' },
      body: 't'.repeat(MB / 2),
    });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).length, MB / 2);
  });
});

describe('POST_MAX_SIZE still bounds uploads', () => {
  it('answers /hello while a 48 MB upload is on its way, then stores the upload', async () => {
    const { contentType, body } = multipartBody([{ field: 'file', name: 'big.bin', size: 48 * MB }]);
    let hello: number | undefined;
    const answer = await sendStreaming(service(), {
      path: '/upload',
      total: body.length,
      headers: { 'content-type': contentType },
      piece: (offset, size) => body.subarray(offset, offset + size),
      onProgress: async (sent) => {
        if (hello === undefined && sent >= body.length / 2) hello = (await ask(service(), { path: '/hello' })).status;
      },
    });
    assert.equal(hello, 200);
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).files[0].size, 48 * MB);
  });
});
