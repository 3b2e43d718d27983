/**
 * CONTRACT section 7, uploads: memory does not grow with file size. A 50 MB file, then a
 * 250 MB one, are uploaded to the real service while its resident memory is read from
 * /proc; a file held in memory would add its size. What does rise is garbage awaiting
 * collection, which levels off at a size set by the Node in use, not by the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { residentBytes, startService, serviceForTests } from '../support/service.js';
import { multipartBody, sendStreaming } from '../support/streaming.js';

const MB = 1024 * 1024;
const service = serviceForTests(() =>
  startService({
    ROUTES: 'test/fixtures/limit-routes.ts',
    POST_MAX_SIZE: '300M',
    UPLOAD_MAX_FILESIZE: '300M',
    TMPDIR: mkdtempSync(join(tmpdir(), 'vigil-rss-test-')),
  }),
);

/** A multipart body with one file of `size` bytes, made piece by piece, never whole. */
function streamedUpload(size: number) {
  const { contentType, body: empty } = multipartBody([{ field: 'file', name: 'big.bin', size: 0 }]);
  const head = empty.subarray(0, empty.indexOf('\r\n\r\n') + 4);
  const tail = empty.subarray(head.length);
  const total = head.length + size + tail.length;
  const filler = Buffer.alloc(64 * 1024, 0x66);
  const piece = (offset: number, length: number) => {
    // Pieces are 64 KB and the head is shorter: the head only ever starts the first one.
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) {
      const at = offset + i;
      out[i] = at < head.length ? head[at]! : at >= head.length + size ? tail[at - head.length - size]! : filler[0]!;
    }
    return out;
  };
  return { contentType, total, piece };
}

async function uploadWatchingMemory(
  size: number,
): Promise<{ status: number; body: string; before: number; peak: number }> {
  const upload = streamedUpload(size);
  const before = residentBytes(service().pid);
  let peak = before;
  const watch = setInterval(() => (peak = Math.max(peak, residentBytes(service().pid))), 10);
  try {
    const answer = await sendStreaming(service(), {
      path: '/upload',
      total: upload.total,
      headers: { 'content-type': upload.contentType },
      piece: upload.piece,
    });
    peak = Math.max(peak, residentBytes(service().pid));
    return { status: answer.status, body: answer.body, before, peak };
  } finally {
    clearInterval(watch);
  }
}

describe('an upload streams to disk: memory does not grow with file size', () => {
  let first: Awaited<ReturnType<typeof uploadWatchingMemory>>;

  it('keeps the resident memory under the file size while a 50 MB file is uploaded', async () => {
    // A first small upload loads the code on the way, so that the measured one shows the file.
    assert.equal((await uploadWatchingMemory(2 * MB)).status, 200);
    first = await uploadWatchingMemory(50 * MB);
    assert.equal(first.status, 200);
    assert.equal(JSON.parse(first.body).files[0].size, 50 * MB);
    const growth = first.peak - first.before;
    process.stdout.write(
      `# 50 MB upload: RSS ${(first.before / MB).toFixed(1)} MB before, ${(first.peak / MB).toFixed(1)} MB at peak (+${(growth / MB).toFixed(1)} MB)\n`,
    );
    // Held in memory, the file alone would add 50 MB; what remains is garbage not yet collected.
    assert.ok(growth < 50 * MB, `resident memory grew by ${(growth / MB).toFixed(1)} MB`);
  });

  it('does not rise with a file 200 MB larger', async () => {
    const second = await uploadWatchingMemory(250 * MB);
    assert.equal(second.status, 200);
    const rise = second.peak - first.peak;
    process.stdout.write(
      `# 250 MB upload: RSS peak ${(second.peak / MB).toFixed(1)} MB (${rise >= 0 ? '+' : ''}${(rise / MB).toFixed(1)} MB over the 50 MB upload's peak)\n`,
    );
    // Held in memory, the larger file would raise the peak by 200 MB.
    assert.ok(rise < 60 * MB, `the peak rose by ${(rise / MB).toFixed(1)} MB`);
  });
});
