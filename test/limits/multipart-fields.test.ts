/**
 * Issue 41, item 3: a multipart body's text fields are held in memory for the handler, as
 * a form body is, so they are read only up to PARSED_BODY_MAX_SIZE (all of them together,
 * names included) and refused with the same 413 past it, cut where they pass it. Files
 * still stream to disk under UPLOAD_MAX_FILESIZE and POST_MAX_SIZE.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { debugMessage } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';
import { startTogether } from '../support/start-together.js';
import { multipartBody, sendStreaming } from '../support/streaming.js';

const MB = 1024 * 1024;
const limitRoutes = { ROUTES: 'test/fixtures/limit-routes.ts' };
let production: Service;
let debug: Service;
/** UPLOAD_MAX_FILESIZE below PARSED_BODY_MAX_SIZE: each part, text or file, is bounded by it. */
let smallParts: Service;
before(async () => {
  [production, debug, smallParts] = await startTogether(
    [
      startInProcess({ ...limitRoutes, APP_ENV: 'prod' }),
      startInProcess(limitRoutes),
      startInProcess({ ...limitRoutes, UPLOAD_MAX_FILESIZE: '100K' }),
    ],
    (service) => service.stop(),
  );
});
after(() => Promise.all([production, debug, smallParts].map((service) => service.stop())));

/** A multipart body with one text field of `size` bytes, made piece by piece, never whole. */
function streamedField(size: number) {
  const boundary = 'vigil-field-test';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + size + tail.length;
  const piece = (offset: number, length: number) => {
    const out = Buffer.alloc(length, 0x74);
    for (let i = 0; i < length; i++) {
      const at = offset + i;
      if (at < head.length) out[i] = head[at]!;
      else if (at >= head.length + size) out[i] = tail[at - head.length - size]!;
    }
    return out;
  };
  return { contentType: `multipart/form-data; boundary=${boundary}`, total, piece };
}

function sendField(service: Service, size: number, options: { chunked?: boolean; accept?: string } = {}) {
  const field = streamedField(size);
  return sendStreaming(service, {
    path: '/upload',
    total: field.total,
    chunked: options.chunked ?? false,
    headers: { 'content-type': field.contentType, accept: options.accept ?? 'application/json' },
    piece: field.piece,
  });
}

function upload(service: Service, fields: Record<string, string>, files: Parameters<typeof multipartBody>[0] = []) {
  const { contentType, body } = multipartBody(files, fields);
  return ask(service, {
    method: 'POST',
    path: '/upload',
    headers: { 'content-type': contentType, accept: 'application/json' },
    body,
  });
}

const fieldsMessage =
  'The text fields of the multipart body are larger than PARSED_BODY_MAX_SIZE (512K), the limit for JSON, form and text bodies';

describe('a multipart text field over PARSED_BODY_MAX_SIZE is a 413, as a text body is', () => {
  it('refuses a 4 MiB field in production with the problem of the pipeline, and closes the connection', async () => {
    const answer = await sendField(production, 4 * MB);
    assert.equal(answer.status, 413, answer.body.slice(0, 300));
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.deepEqual(JSON.parse(answer.body), {
      type: 'about:blank',
      title: 'Payload Too Large',
      status: 413,
      detail: 'Payload Too Large',
    });
    assert.equal(answer.headers.connection, 'close');
  });

  it('names the setting and the code in debug mode, with a report', async () => {
    const answer = await sendField(debug, 4 * MB);
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), fieldsMessage);
    const problem = JSON.parse(answer.body);
    assert.equal(problem.exception.class, 'PayloadTooLargeHttpError');
    assert.match(String(answer.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });

  it('cuts a field where it passes the limit, long before its end', async () => {
    const total = 32 * MB;
    const answer = await sendField(debug, total, { chunked: true, accept: 'text/plain' });
    assert.equal(answer.status, 413);
    assert.match(answer.body, /PayloadTooLargeHttpError \(VIGIL_ERR_BODY_TOO_LARGE\)/);
    assert.ok(answer.sentWhenAnswered < total / 4, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('still reads a field that, with its name, is exactly the limit', async () => {
    const answer = await upload(debug, { n: 't'.repeat(MB / 2 - 1) });
    assert.equal(answer.status, 200, answer.body.slice(0, 300));
    assert.equal(JSON.parse(answer.body).fields.n.length, MB / 2 - 1);
  });
});

describe('the text fields together are bounded by PARSED_BODY_MAX_SIZE, as a form body is', () => {
  it('refuses many fields each under the limit whose sum is over it', async () => {
    const fields = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, 'v'.repeat(100 * 1024)]));
    const answer = await upload(debug, fields);
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), fieldsMessage);
  });

  it('counts the names: long names over the limit together are refused too', async () => {
    const fields = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${i}`.padEnd(70 * 1024, 'n'), '']));
    const answer = await upload(debug, fields);
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), fieldsMessage);
  });

  it('keeps the values of repeated names in order, and fields as text whatever their type', async () => {
    const boundary = 'vigil-types';
    const part = (name: string, value: string, type?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${value}\r\n`;
    const answer = await ask(debug, {
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `${part('a', '1')}${part('a', 'é2')}${part('j', '{"x":1}', 'application/json')}--${boundary}--\r\n`,
    });
    assert.equal(answer.status, 200, answer.body.slice(0, 300));
    assert.deepEqual(JSON.parse(answer.body), { files: [], fields: { a: ['1', 'é2'], j: '{"x":1}' } });
  });
});

describe('a text part without a name is malformed', () => {
  it('answers 400 through the pipeline', async () => {
    const answer = await ask(debug, {
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': 'multipart/form-data; boundary=vgl' },
      body: '--vgl\r\nContent-Disposition: form-data\r\n\r\nabc\r\n--vgl--\r\n',
    });
    assert.equal(answer.status, 400);
    assert.equal(debugMessage(answer), 'The multipart body is malformed: a text field has no name');
  });
});

describe('files are not text fields: they still stream to disk under UPLOAD_MAX_FILESIZE', () => {
  it('accepts a 4 MiB file in production beside a small field', async () => {
    const answer = await upload(production, { note: 'hi' }, [{ field: 'doc', name: 'big.bin', size: 4 * MB }]);
    assert.equal(answer.status, 200, answer.body.slice(0, 300));
    assert.deepEqual(JSON.parse(answer.body), {
      files: [{ field: 'doc', name: 'big.bin', size: 4 * MB, type: 'application/octet-stream' }],
      fields: { note: 'hi' },
    });
  });

  it('still takes a part typed application/octet-stream without a file name as a file', async () => {
    const boundary = 'vigil-octets';
    const answer = await ask(debug, {
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="blob"\r\nContent-Type: application/octet-stream\r\n\r\n${'b'.repeat(MB)}\r\n--${boundary}--\r\n`,
    });
    assert.equal(answer.status, 200, answer.body.slice(0, 300));
    assert.deepEqual(JSON.parse(answer.body).files, [{ field: 'blob', size: MB, type: 'application/octet-stream' }]);
  });

  it('bounds a text field by UPLOAD_MAX_FILESIZE too when that is the lower, naming it', async () => {
    const answer = await upload(smallParts, { note: 'n'.repeat(200 * 1024) });
    assert.equal(answer.status, 413);
    assert.equal(
      debugMessage(answer),
      'The text field "note" is larger than UPLOAD_MAX_FILESIZE (100K), the limit of each part of a multipart body',
    );
  });
});
