/** Issue 11: several kernels writing one report store share its tokens and its retention. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TOKEN_PATTERN } from '../../src/profiler/tokens/token.js';
import { askInTurn, startKernel } from '../support/kernel.js';
import { openSqlite } from '../../src/profiler/storage/sqlite/sqlite-driver.js';

/** Waits until `check` holds (retention runs on the writers' own schedule), or fails after 10 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`still not so after 10 s: ${what}`);
    await sleep(20);
  }
}

describe('two kernels writing one SQLite store never hand out the same token', () => {
  it('issues 20,000 tokens with no duplicate, and stores every report', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-shared-'));
    const env = { VAR_DIR: varDir, PROFILER_MAX_REPORTS: '100000' };
    const kernels = [await startKernel(env), await startKernel(env)];
    try {
      const tokens = await askInTurn(kernels, 20_000, 32, (i) => `/shared/${i}`);
      assert.equal(tokens.length, 20_000);
      const issued = tokens.filter((token) => /^[0-9a-f]{6}$/.test(token));
      // Both kernels run in this process, so a lease's answer can wait unread behind the
      // requests for longer than a request may wait for it (1 s for SQLite), and a busy disk can
      // hold the store's write thread as long: the requests of that second go without a token
      // (one such stall on a loaded CI machine took 4064), and the kernels say so. How many is a
      // matter of the machine's speed, not checked here; at least half have one.
      const logged = kernels.flatMap((kernel) => kernel.logLines).join('');
      assert.ok(
        issued.length >= 10_000,
        `${20_000 - issued.length} requests have no token; the kernels logged:\n${logged}`,
      );
      if (issued.length < 20_000)
        assert.match(logged, /did not answer within \d+ ms/, 'a request without a token is said');
      const duplicates = issued.length - new Set(issued).size;
      assert.equal(duplicates, 0, `${duplicates} tokens were handed out twice`);
      for (const kernel of kernels) await kernel.profiler!.writer.flush();
      const dropped = kernels.reduce((sum, kernel) => sum + kernel.profiler!.writer.dropped, 0);
      assert.equal(dropped, 20_000 - issued.length, 'only the requests without a token are counted as dropped');
      assert.equal(await kernels[0]!.profiler!.store.count(), issued.length);
    } finally {
      await Promise.all(kernels.map((kernel) => kernel.close()));
    }
  });
});

/** The store's retention lease row, read as another party would. */
function retentionLease(file: string): { holder: string; expires: number } {
  const db = openSqlite(file, { readonly: true });
  try {
    return db.prepare('SELECT holder, expires FROM retention_lease WHERE id = 1').get() as {
      holder: string;
      expires: number;
    };
  } finally {
    db.close();
  }
}

describe('retention runs once per store: one kernel purges, the other skips', () => {
  it("keeps PROFILER_MAX_REPORTS through both kernels' writes, runs the retention in one, and hands it over when that kernel stops", async () => {
    const env = { VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-shared-')), PROFILER_MAX_REPORTS: '50' };
    // A lease longer than the test: the first kernel takes it at its start and keeps it. Both
    // kernels try the retention every 20 ms.
    const profilerWriter = { flushDelayMs: 60_000, idlePurgeMs: 20, retentionLeaseMs: 600_000 };
    const first = await startKernel(env, { profilerWriter });
    const second = await startKernel(env, { profilerWriter });
    const file = first.profiler!.store.location;
    const stored = () => first.profiler!.store.count();
    const purged = () => first.profiler!.writer.purged + second.profiler!.writer.purged;
    let firstClosed = false;
    try {
      await askInTurn([first, second], 400, 8, (i) => `/kept/${i}`);
      await Promise.all([first.profiler!.writer.flush(), second.profiler!.writer.flush()]);
      // Each write deletes the oldest beyond the 50 in its own transaction, whichever kernel wrote it.
      assert.equal(await stored(), 50);
      assert.equal(purged(), 350, 'the writes deleted every report beyond the 50, none twice');
      assert.ok(second.profiler!.writer.retentionSkipped > 0, 'the second kernel skipped the retention');
      const held = retentionLease(file);
      assert.ok(held.expires > Date.now(), 'the first kernel holds the retention lease');

      // The first kernel gives the lease back as it stops: the second one takes the retention over.
      await first.close();
      firstClosed = true;
      // Given up: cleared, or already taken by the second kernel, which tries every 20 ms.
      const released = retentionLease(file);
      assert.ok(
        released.expires === 0 || released.holder !== held.holder,
        `the first kernel gave the lease up: ${JSON.stringify(released)}`,
      );
      await until('the second kernel holds the retention lease', async () => {
        const now = retentionLease(file);
        return now.holder !== held.holder && now.expires > Date.now();
      });
      const before = second.profiler!.writer.purged;
      const after = await askInTurn([second], 100, 8, (i) => `/after/${i}`);
      assert.ok(
        after.every((token) => TOKEN_PATTERN.test(token)),
        `every request has its token: ${after.filter((token) => !TOKEN_PATTERN.test(token)).length} have none`,
      );
      await second.profiler!.writer.flush();
      assert.equal(second.profiler!.writer.queued, 0);
      assert.equal(await second.profiler!.store.count(), 50);
      assert.equal(second.profiler!.writer.purged - before, 100, second.logLines.join(''));
    } finally {
      await Promise.all([firstClosed ? undefined : first.close(), second.close()]);
    }
  });
});
