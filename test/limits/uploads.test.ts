/**
 * CONTRACT section 7, uploads: files stream to temporary files under UPLOAD_MAX_FILESIZE
 * and are removed when the request ends, however it ends. The service runs with
 * UPLOAD_MAX_FILESIZE=1M, POST_MAX_SIZE=3M and its own TMPDIR, to look into.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { describe, it } from 'node:test';
import { ask, startService, serviceForTests } from '../support/service.js';
import { multipartBody, sendStreaming } from '../support/streaming.js';
import { debugMessage } from '../support/answers.js';

const MB = 1024 * 1024;
const uploadDir = mkdtempSync(join(tmpdir(), 'vigil-uploads-test-'));
const service = serviceForTests(() =>
  startService({
    ROUTES: 'test/fixtures/limit-routes.ts',
    POST_MAX_SIZE: '3M',
    UPLOAD_MAX_FILESIZE: '1M',
    MAX_EXECUTION_TIME: '1',
    TMPDIR: uploadDir,
  }),
);

/** Upload directories left in the service's TMPDIR (tsx keeps its own cache there too). */
const leftovers = () => readdirSync(uploadDir).filter((name) => name.startsWith('vigil-upload-'));

async function upload(
  path: string,
  files: Array<{ field: string; name: string; size: number }>,
  fields?: Record<string, string>,
) {
  const { contentType, body } = multipartBody(files, fields);
  return ask(service(), { method: 'POST', path, headers: { 'content-type': contentType }, body });
}

/** Removal happens when the response closes: give it a moment, then look. */
async function assertNoLeftovers(): Promise<void> {
  for (let i = 0; i < 50 && leftovers().length > 0; i++) await sleep(20);
  assert.deepEqual(leftovers(), []);
}

describe('files up to UPLOAD_MAX_FILESIZE are received on disk', () => {
  it('answers the names and sizes of the files, with the fields', async () => {
    const answer = await upload(
      '/upload',
      [
        { field: 'a', name: 'exact.bin', size: MB },
        { field: 'b', name: 'small.txt', size: 10 },
      ],
      { note: 'hi' },
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), {
      files: [
        { field: 'a', name: 'exact.bin', size: MB, type: 'application/octet-stream' },
        { field: 'b', name: 'small.txt', size: 10, type: 'application/octet-stream' },
      ],
      fields: { note: 'hi' },
    });
    await assertNoLeftovers();
  });

  it('hands the files to an isolated handler, which can read them', async () => {
    const answer = await upload('/isolated-upload', [{ field: 'a', name: 'one.bin', size: 1000 }], { x: '1' });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { files: [{ name: 'one.bin', size: 1000 }], body: { x: '1' } });
    // Its log line reaches the service's log (read here through a pipe: give it a moment).
    for (let i = 0; i < 50 && !/"msg":"isolated upload received"/.test(service().output()); i++) await sleep(20);
    assert.match(service().output(), /"count":1,.*"msg":"isolated upload received"/);
    await assertNoLeftovers();
  });
});

describe('a file over UPLOAD_MAX_FILESIZE is a 413', () => {
  it('answers one byte over with 413 naming the file', async () => {
    const answer = await upload('/upload', [{ field: 'a', name: 'big.bin', size: MB + 1 }]);
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), 'The uploaded file "big.bin" is larger than UPLOAD_MAX_FILESIZE (1M)');
    await assertNoLeftovers();
  });

  it('answers a second file over the limit with 413 and removes the first', async () => {
    const answer = await upload('/upload', [
      { field: 'a', name: 'fine.bin', size: 1000 },
      { field: 'b', name: 'big.bin', size: 2 * MB },
    ]);
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), 'The uploaded file "big.bin" is larger than UPLOAD_MAX_FILESIZE (1M)');
    await assertNoLeftovers();
  });
});

describe('more files than MAX_FILE_UPLOADS (20) is a 413, as in php.ini (issue 41, item 6)', () => {
  const oneByteFiles = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ field: `f${i}`, name: `f${i}.bin`, size: 1 }));

  it('takes 20 files, with text fields beside them', async () => {
    const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, 'v']));
    const answer = await upload('/upload', oneByteFiles(20), fields);
    assert.equal(answer.status, 200);
    const received = JSON.parse(answer.body);
    assert.equal(received.files.length, 20);
    assert.equal(Object.keys(received.fields).length, 50);
    await assertNoLeftovers();
  });

  for (const count of [21, 999]) {
    it(`refuses ${count} files through the pipeline and removes those received`, async () => {
      const answer = await upload('/upload', oneByteFiles(count));
      assert.equal(answer.status, 413);
      assert.equal(debugMessage(answer), 'The multipart body has more than MAX_FILE_UPLOADS (20) files');
      assert.match(answer.body, /VIGIL_ERR_TOO_MANY_UPLOADS/);
      assert.equal(answer.headers.connection, 'close');
      await assertNoLeftovers();
    });
  }
});

describe('a multipart body over POST_MAX_SIZE is a 413', () => {
  it('refuses a declared Content-Length over POST_MAX_SIZE before reading it', async () => {
    const files = [1, 2, 3, 4].map((n) => ({ field: `f${n}`, name: `part${n}.bin`, size: MB - 1000 }));
    const answer = await upload('/upload', files);
    assert.equal(answer.status, 413);
    // The declared length is named: the body was refused before the multipart parser counted it.
    assert.match(
      debugMessage(answer),
      /^The request body \(Content-Length: 41908\d\d bytes\) is larger than POST_MAX_SIZE \(3M\)$/,
    );
  });

  it('cuts a chunked multipart body where it passes the limit', async () => {
    const { contentType, body } = multipartBody(
      [1, 2, 3, 4].map((n) => ({ field: `f${n}`, name: `part${n}.bin`, size: MB - 1000 })),
    );
    const answer = await sendStreaming(service(), {
      path: '/upload',
      total: body.length,
      chunked: true,
      headers: { 'content-type': contentType },
      piece: (offset, size) => body.subarray(offset, offset + size),
    });
    assert.equal(answer.status, 413);
    assert.equal(debugMessage(answer), 'The request body is larger than POST_MAX_SIZE (3M)');
    await assertNoLeftovers();
  });
});

describe('temporary files are removed however the request ends', () => {
  it('removes them when the handler runs past its deadline', async () => {
    const answer = await upload('/upload-then-wait', [{ field: 'a', name: 'late.bin', size: 1000 }]);
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), 'Maximum execution time of 1 second exceeded');
    await assertNoLeftovers();
  });

  it('removes them when the client goes away in the middle of an upload', async () => {
    const { contentType, body } = multipartBody([
      { field: 'a', name: 'first.bin', size: 1000 },
      { field: 'b', name: 'cut.bin', size: 900 * 1024 },
    ]);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(
        { host: 'localhost', port: service().port, ca: service().ca, servername: 'localhost' },
        () => {
          socket.write(
            `POST /upload HTTP/1.1\r\nHost: localhost:${service().port}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
          );
          // The first file and half of the second; once they are on disk, the client is gone.
          socket.write(body.subarray(0, body.length / 2), async () => {
            for (let i = 0; i < 100 && leftovers().length === 0; i++) await sleep(10);
            assert.equal(leftovers().length, 1, 'the upload reached the disk');
            socket.destroy();
            resolve();
          });
        },
      );
      socket.on('error', reject);
    });
    await assertNoLeftovers();
    assert.equal((await ask(service(), { path: '/hello' })).status, 200);
  });

  it('removes them after a malformed multipart body (400)', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\nabc',
    });
    assert.equal(answer.status, 400);
    assert.match(debugMessage(answer), /^The multipart body is malformed: /);
    await assertNoLeftovers();
  });
});
