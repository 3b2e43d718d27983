/**
 * Issue 10, faults of the report store, with the real service process: a small disk stays
 * bounded and recovers once space is back; a damaged store file is moved aside at start.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sendMany } from '../support/load.js';
import { startKernel } from '../support/kernel.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, runMain, startService, type Service } from '../support/service.js';
import { encoded, report } from '../support/reports.js';
import { storeOf } from '../support/stores.js';
import { openSqlite } from '../../src/profiler/storage/sqlite/sqlite-driver.js';

const MiB = 1024 * 1024;
const JSON_ACCEPT = { accept: 'application/json' };

/**
 * A tmpfs of `bytes` mounted for the test: a real disk that fills up. Undefined where this
 * process may not mount one (not root, or no CAP_SYS_ADMIN); VIGIL_TEST_NO_MOUNT=1 asks for
 * that case on purpose, to run the other branch.
 */
function mountSmallDisk(bytes: number): { dir: string; unmount(): void } | undefined {
  if (process.getuid?.() !== 0 || process.env.VIGIL_TEST_NO_MOUNT === '1') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'vigil-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch {
    rmdirSync(dir);
    return undefined;
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmdirSync(dir);
    },
  };
}

/** Adds to a filler file until the disk refuses more; returns its path. */
function fillDisk(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'a');
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The store's files and their bytes. */
function storeBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.startsWith('profiler.sqlite'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** True when the report of `token` is in the store (the search writes what is queued first). */
async function stored(service: Service, token: string): Promise<boolean> {
  const answer = await ask(service, { path: `/_profiler/search?token=${token}`, headers: JSON_ACCEPT });
  assert.equal(answer.status, 200, answer.body);
  return (JSON.parse(answer.body) as Array<{ token: string }>).some((found) => found.token === token);
}

async function droppedCount(service: Service): Promise<number> {
  const page = await ask(service, { path: '/_profiler' });
  const match = /id="dropped"><b>(\d+)<\/b> dropped since start/.exec(page.body);
  assert.ok(match, page.body);
  return Number(match[1]);
}

/** Requests whose reports are about 5.5 KB each (a long URL is kept three times: in the summary, the request section and its query). */
const longPath = (round: string) => (i: number) => `/nowhere/${round}-${i}?${'q'.repeat(1200)}`;

describe('a small disk: the store stays within the retention plus a constant, drops and counts reports while the disk is full, and stores again once space is back', () => {
  it('on a 3 MiB volume with PROFILER_MAX_REPORTS=200', async () => {
    const disk = mountSmallDisk(3 * MiB);
    if (!disk) return simulatedFullStore();
    let service: Service | undefined;
    try {
      service = await startInProcess({ VAR_DIR: disk.dir, PROFILER_MAX_REPORTS: '200' });
      // Many more reports than the retention keeps: disk use must stay flat, every report stored.
      let peak = 0;
      for (let round = 0; round < 12; round++) {
        const sent = await sendMany(service, { count: 250, concurrency: 8, path: longPath(`r${round}`) });
        assert.ok(
          await stored(service, sent.tokens.at(-1)!),
          `round ${round}: the last report is stored (store files: ${storeBytes(disk.dir)} bytes)`,
        );
        peak = Math.max(peak, storeBytes(disk.dir));
      }
      assert.equal(await droppedCount(service), 0);
      // 200 reports of about 5.5 KB fill about 1.2 MiB of pages; the WAL (512 KiB and one batch) and the -shm add about 1.1 MiB (bench/NOTES.md).
      assert.ok(peak <= 2.75 * MiB, `the store's files peaked at ${peak} bytes`);

      // The disk fills up with something else: reports are dropped and counted, nothing crashes.
      // The filler also takes whatever the store gives back meanwhile (its WAL cut back to
      // 512 KiB, or emptied after a retention run), so the disk stays full for the store.
      const filler = fillDisk(disk.dir);
      for (let round = 0; round < 12; round++) {
        await sendMany(service, { count: 25, concurrency: 8, path: longPath(`full${round}`) });
        fillDisk(disk.dir);
      }
      await ask(service, { path: '/_profiler/search', headers: JSON_ACCEPT });
      const dropped = await droppedCount(service);
      assert.ok(dropped > 0, 'reports were dropped while the disk was full');
      const failureLines = service
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":50'));
      assert.ok(
        failureLines.length < 20,
        `${failureLines.length} error lines for a full disk:\n${failureLines.slice(0, 5).join('\n')}`,
      );

      // Space comes back: new reports are stored again, without a restart.
      unlinkSync(filler);
      for (let round = 0; round < 3; round++) {
        const sent = await sendMany(service, { count: 250, concurrency: 8, path: longPath(`back${round}`) });
        assert.ok(
          await stored(service, sent.tokens.at(-1)!),
          `after space came back, round ${round}: the last report is stored`,
        );
      }
      assert.equal(await droppedCount(service), dropped, 'nothing more is dropped once space is back');
      await service.stop();

      // And across a restart.
      service = await startInProcess({ VAR_DIR: disk.dir, PROFILER_MAX_REPORTS: '200' });
      const again = await sendMany(service, { count: 250, concurrency: 8, path: longPath('restart') });
      assert.ok(await stored(service, again.tokens.at(-1)!));
      assert.ok(storeBytes(disk.dir) <= 2.75 * MiB);
    } finally {
      await service?.stop();
      disk.unmount();
    }
  });
});

/**
 * Where no disk can be mounted: the same course in the kernel, with SQLite's page limit on
 * the store's connection standing in for the full disk (it fails writes with SQLITE_FULL).
 */
async function simulatedFullStore(): Promise<void> {
  const varDir = mkdtempSync(join(tmpdir(), 'vigil-full-'));
  const store = storeOf(varDir, {}, { maxPageCount: 200 });
  const kernel = await startKernel({ VAR_DIR: varDir, PROFILER_MAX_REPORTS: '100000' }, { reportStore: store });
  try {
    const send = async (path: string) => String((await kernel.app.inject({ url: path })).headers['x-debug-token']);
    for (let i = 0; i < 400 && kernel.profiler!.writer.dropped === 0; i++) {
      await send(longPath('fill')(i));
      await kernel.profiler!.writer.flush();
    }
    assert.ok(kernel.profiler!.writer.dropped > 0, 'reports were dropped once the store was full');
    const page = await kernel.app.inject({ url: '/_profiler' });
    assert.match(page.body, /class="bad" id="dropped"/);
    await store.clear();
    const token = await send(longPath('back')(0));
    await kernel.profiler!.writer.flush();
    assert.ok(await store.read(token), 'once there is room, reports are stored again');
  } finally {
    await kernel.close();
  }
}

describe('a damaged store is moved aside at start, and a new one is created', () => {
  const expectMovedAside = async (varDir: string, original: Buffer) => {
    const service = await startInProcess({ VAR_DIR: varDir });
    try {
      const moved = readdirSync(varDir).filter((name) => /^profiler\.sqlite\.damaged-\d{8}T\d{6}Z$/.test(name));
      assert.equal(moved.length, 1, `files: ${readdirSync(varDir).join(', ')}`);
      const movedPath = join(varDir, moved[0]!);
      assert.ok(readFileSync(movedPath).equals(original), 'the damaged file is kept as it was');
      assert.ok(service.output().includes(movedPath), `the log names ${movedPath}:\n${service.output()}`);
      const token = String((await ask(service, { path: '/after-repair' })).headers['x-debug-token']);
      assert.ok(await stored(service, token), 'new reports are stored');
      const search = await ask(service, { path: '/_profiler/search?url=after', headers: JSON_ACCEPT });
      assert.equal(search.status, 200);
    } finally {
      await service.stop();
    }
  };

  it('moves a file full of garbage aside', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-garbage-'));
    const garbage = randomBytes(64 * 1024);
    writeFileSync(join(varDir, 'profiler.sqlite'), garbage);
    await expectMovedAside(varDir, garbage);
  });

  /** A real store of 400 reports whose middle third of pages was overwritten: its tokens and its file. */
  const overwrittenStore = async (): Promise<{ varDir: string; file: string; tokens: string[]; bytes: Buffer }> => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-overwritten-'));
    const first = await startInProcess({ VAR_DIR: varDir });
    const { tokens } = await sendMany(first, { count: 400, concurrency: 8, path: longPath('before') });
    await first.stop();
    const file = join(varDir, 'profiler.sqlite');
    assert.ok(!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0, 'the store was closed cleanly');
    const bytes = readFileSync(file);
    const third = Math.floor(bytes.length / 3 / 4096) * 4096;
    randomBytes(third).copy(bytes, third);
    writeFileSync(file, bytes);
    return { varDir, file, tokens, bytes };
  };

  it('moves a real store whose middle pages were overwritten aside', async () => {
    const { varDir, bytes } = await overwrittenStore();
    await expectMovedAside(varDir, bytes);
  });

  it("moves aside a store one of whose reports' text is no longer JSON, when that report is read", async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-garbled-'));
    const first = storeOf(varDir);
    await first.open();
    await first.write(encoded([report('a1a1a1'), report('b2b2b2')]));
    await first.close();
    // Bytes overwritten inside a row's text: SQLite's own checks find nothing wrong.
    const db = openSqlite(join(varDir, 'profiler.sqlite'));
    db.prepare("UPDATE reports SET data = ? WHERE token = 'a1a1a1'").run('{"request\u0001"');
    db.close();
    const moved: string[] = [];
    const store = storeOf(varDir, {}, { onDamaged: ({ movedTo }) => moved.push(movedTo) });
    try {
      await store.open();
      assert.equal(await store.read('a1a1a1'), undefined, 'read from the new store');
      assert.equal(moved.length, 1, 'the file was moved aside');
    } finally {
      await store.close();
    }
  });

  it('checks only the header and schema of a file over the whole-file limit, and finds other damage when reached', async () => {
    const { varDir, file, tokens } = await overwrittenStore();
    const moved: string[] = [];
    const store = storeOf(varDir, {}, { wholeCheckUpTo: 0, onDamaged: ({ movedTo }) => moved.push(movedTo) });
    try {
      await store.open();
      assert.deepEqual(moved, [], 'the file was not read whole before opening');
      for (const token of tokens) await store.read(token);
      assert.equal(moved.length, 1, 'the reads that reached the damaged pages moved the file aside');
      assert.ok(existsSync(moved[0]!) && existsSync(file), 'a new store was opened at the path');
    } finally {
      await store.close();
    }
    const garbage = mkdtempSync(join(tmpdir(), 'vigil-garbage-'));
    writeFileSync(join(garbage, 'profiler.sqlite'), randomBytes(64 * 1024));
    const atOpen: string[] = [];
    const another = storeOf(garbage, {}, { wholeCheckUpTo: 0, onDamaged: ({ movedTo }) => atOpen.push(movedTo) });
    await another.open();
    await another.close();
    assert.equal(atOpen.length, 1, 'a file that is not a database is still moved aside at open');
  });
});

describe('a store that cannot be opened stops the start with a message naming it', () => {
  it('names the path when profiler.sqlite is a directory', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-unopenable-'));
    mkdirSync(join(varDir, 'profiler.sqlite'));
    const { code, stderr } = await runMain({ VAR_DIR: varDir });
    assert.equal(code, 1);
    assert.ok(
      stderr.startsWith(
        `vigil: cannot start: VAR_DIR: the report store ${join(varDir, 'profiler.sqlite')} cannot be opened: `,
      ),
      stderr,
    );
    assert.doesNotMatch(stderr, /\n    at /, 'a message, not a stack');
  });
});

describe('a clock stepped back: retention and "newest" follow arrival order, so the new reports are kept and shown first', () => {
  it('keeps every new report and opens the newest at /latest, with older reports stored an hour ahead', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-clock-'));
    // Reports written before the clock went back an hour: their times are now in the future.
    const earlier = storeOf(varDir);
    await earlier.open();
    const ahead = Date.now() + 3_600_000;
    await earlier.write(
      encoded(Array.from({ length: 50 }, (_, i) => report(`f${String(i).padStart(5, '0')}`, { time: ahead + i }))),
    );
    await earlier.close();
    const service = await startInProcess({ VAR_DIR: varDir, PROFILER_MAX_REPORTS: '40' });
    try {
      const sent = await sendMany(service, { count: 30, concurrency: 1, path: (i) => `/after-step/${i}` });
      const listed = await ask(service, { path: '/_profiler/search?limit=100', headers: JSON_ACCEPT });
      const tokens = (JSON.parse(listed.body) as Array<{ token: string }>).map((found) => found.token);
      assert.equal(tokens.length, 40);
      assert.deepEqual(tokens.slice(0, 30), sent.tokens.toReversed(), 'every new report is kept, the newest first');
      const latest = await ask(service, { path: '/_profiler/latest', headers: JSON_ACCEPT });
      assert.equal((JSON.parse(latest.body) as { token: string }).token, sent.tokens.at(-1));
      assert.equal(await droppedCount(service), 0);
    } finally {
      await service.stop();
    }
  });
});

/** Lifts the file-size limit of a running process (`startService`'s `fileSizeLimitKiB`): space comes back. */
function liftFileSizeLimit(pid: number): void {
  execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:unlimited'], { stdio: 'pipe' });
}

/** Asks until an answer carries a debug token (the store leases again), for at most `ms`. */
async function untilTokened(service: Service, agent: Agent, path: string, ms: number): Promise<string | undefined> {
  const until = Date.now() + ms;
  for (let i = 0; Date.now() < until; i++) {
    const answer = await ask(service, { path: `${path}-${i}`, agent });
    if (typeof answer.headers['x-debug-token'] === 'string') return answer.headers['x-debug-token'];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

describe('a full disk never stops a start: the service serves without reports, says so in one line, and stores again once there is room', () => {
  it('starts with a VAR_DIR where no file can grow (the store and the certificate), answers, and stores reports once the limit is lifted', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-nospace-'));
    // Its own certificate, which cannot be written either; the client then trusts nothing, and checks nothing.
    const agent = new Agent({ rejectUnauthorized: false });
    const service = await startService({ VAR_DIR: varDir }, { ownCertificate: true, fileSizeLimitKiB: 0 });
    try {
      const answer = await ask(service, { path: '/while-full', agent });
      assert.equal(answer.status, 404, 'the service answers');
      const file = join(varDir, 'profiler.sqlite');
      const storeLines = service
        .output()
        .split('\n')
        .filter((line) => line.includes(`report store ${file} cannot be written`));
      assert.equal(storeLines.length, 1, service.output());
      assert.match(storeLines[0]!, /reports are dropped and counted until it can/);
      assert.match(service.output(), /certificate .* could not be written .* kept in memory/);
      assert.doesNotMatch(service.output(), /\n    at /, 'no stack');

      liftFileSizeLimit(service.pid);
      const token = await untilTokened(service, agent, '/after-room', 15_000);
      assert.ok(token, `reports get tokens again once there is room:\n${service.output()}`);
      const found = await ask(service, { path: `/_profiler/search?token=${token}`, headers: JSON_ACCEPT, agent });
      assert.equal(found.status, 200, found.body);
      assert.ok(
        (JSON.parse(found.body) as Array<{ token: string }>).some((entry) => entry.token === token),
        'its report is stored',
      );
      assert.match(service.output(), /report store .* can be written again/);
    } finally {
      agent.destroy();
      await service.stop();
    }
  });

  it('starts on a full tmpfs (where one can be mounted), answers, and stores reports once space is back', async (t) => {
    const disk = mountSmallDisk(1 * MiB);
    if (!disk) return t.skip('no tmpfs can be mounted here');
    let service: Service | undefined;
    try {
      const filler = fillDisk(disk.dir);
      service = await startInProcess({ VAR_DIR: disk.dir });
      const answer = await ask(service, { path: '/while-full' });
      assert.equal(answer.status, 404);
      assert.match(service.output(), /report store .* cannot be written \(SQLITE_FULL/);
      unlinkSync(filler);
      const agent = new Agent({ ca: service.ca });
      try {
        const token = await untilTokened(service, agent, '/after-room', 15_000);
        assert.ok(token, `reports get tokens again once space is back:\n${service.output()}`);
        assert.ok(await stored(service, token));
      } finally {
        agent.destroy();
      }
    } finally {
      await service?.stop();
      disk.unmount();
    }
  });

  it('starts on an existing store with no room to grow, and answers', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-nospace-existing-'));
    const first = await startInProcess({ VAR_DIR: varDir });
    await sendMany(first, { count: 50, concurrency: 4, path: (i) => `/before/${i}` });
    await first.stop();
    const service = await startService({ VAR_DIR: varDir }, { fileSizeLimitKiB: 0 });
    try {
      const answers = await sendMany(service, { count: 20, concurrency: 4, path: (i) => `/while-full/${i}` });
      assert.deepEqual(new Set(answers.statuses), new Set([404]));
    } finally {
      await service.stop();
    }
  });
});

/** Lines of the service's log that hold `text`. */
const linesWith = (service: Service, text: string) =>
  service
    .output()
    .split('\n')
    .filter((line) => line.includes(text));

/** Sends `count` requests under `/later/`, then checks that every one of their reports can be read. */
async function laterReportsReadable(service: Service): Promise<void> {
  const later = await sendMany(service, { count: 20, concurrency: 4, path: (i) => `/later/${i}` });
  const found = await ask(service, { path: '/_profiler/search?url=/later/&limit=100', headers: JSON_ACCEPT });
  assert.equal(found.status, 200, found.body);
  const tokens = new Set((JSON.parse(found.body) as Array<{ token: string }>).map((entry) => entry.token));
  assert.deepEqual(
    later.tokens.filter((token) => !tokens.has(token)),
    [],
    'every later report is stored',
  );
}

describe('the store notices when its file is deleted or damaged while the service runs, says so once, and goes on in a new file', () => {
  it('a store deleted under load: one line, a new file at the path, later reports readable', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-unlinked-'));
    const file = join(varDir, 'profiler.sqlite');
    const service = await startInProcess({ VAR_DIR: varDir });
    try {
      const load = sendMany(service, { count: 1500, concurrency: 4, path: (i) => `/under-load/${i}` });
      await sendMany(service, { count: 100, concurrency: 4, path: (i) => `/before/${i}` });
      // As `rm var/profiler.sqlite*` would, while reports keep coming.
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) unlinkSync(file + suffix);
      await load;
      await laterReportsReadable(service);
      const lines = linesWith(service, `The report store ${file} was lost while in use (it was deleted)`);
      assert.equal(lines.length, 1, service.output());
      assert.ok(existsSync(file), 'a new store file is at the path');
    } finally {
      await service.stop();
    }
  });

  it('a store whose pages are overwritten with garbage under load: one line, the file moved aside, a new one, later reports readable', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-garbled-'));
    const file = join(varDir, 'profiler.sqlite');
    const service = await startInProcess({ VAR_DIR: varDir });
    try {
      await sendMany(service, { count: 400, concurrency: 8, path: longPath('before') });
      const load = sendMany(service, { count: 1500, concurrency: 4, path: (i) => `/under-load/${i}` });
      await sendMany(service, { count: 50, concurrency: 4, path: (i) => `/before-garbage/${i}` });
      // Every page but the first (the header) overwritten, while the service writes.
      const pages = Math.floor(statSync(file).size / 4096);
      const fd = openSync(file, 'r+');
      try {
        writeSync(fd, randomBytes((pages - 1) * 4096), 0, (pages - 1) * 4096, 4096);
      } finally {
        closeSync(fd);
      }
      await load;
      await laterReportsReadable(service);
      const lines = linesWith(service, `The report store ${file} was damaged`);
      assert.equal(lines.length, 1, service.output());
      const moved = readdirSync(varDir).filter((name) => /^profiler\.sqlite\.damaged-\d{8}T\d{6}Z$/.test(name));
      assert.equal(moved.length, 1, `files: ${readdirSync(varDir).join(', ')}`);
      assert.ok(lines[0]!.includes(join(varDir, moved[0]!)), 'the line names where the damaged file went');
    } finally {
      await service.stop();
    }
  });
});
