import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenPermutation } from './token-permutation.js';
import { TOKEN_PATTERN, TokenSource } from './token.js';

/** A lease the test settles by hand, and the sizes asked for. */
function manualLeases() {
  const asked: number[] = [];
  const pending: Array<{ resolve(tokens: string[]): void; reject(error: Error): void }> = [];
  let counter = 0;
  const lease = (count: number) => {
    asked.push(count);
    return new Promise<string[]>((resolve, reject) => pending.push({ resolve, reject }));
  };
  /** Settles the oldest lease with consecutive hex tokens (or `tokens`). */
  const grant = async (tokens?: string[]) => {
    const count = asked[asked.length - pending.length]!;
    pending.shift()!.resolve(tokens ?? Array.from({ length: count }, () => (counter++).toString(16).padStart(6, '0')));
    await new Promise((resolve) => setImmediate(resolve));
  };
  const fail = async (error: Error) => {
    pending.shift()!.reject(error);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { lease, asked, pending, grant, fail };
}

/** A clock and timers the test moves by hand: `advance(ms)` sets the time and runs the timers due by then. */
function manualClock() {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  const timer = (run: () => void, ms: number) => {
    const entry = { at: now + ms, run };
    timers.add(entry);
    return () => void timers.delete(entry);
  };
  const advance = async (to: number) => {
    now = to;
    for (const entry of [...timers].sort((a, b) => a.at - b.at)) {
      if (entry.at > now || !timers.has(entry)) continue;
      timers.delete(entry);
      entry.run();
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { options: { now: () => now, timer }, advance };
}

const hex = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => (from + i).toString(16).padStart(6, '0'));

describe('a token source hands out the tokens the store leased, in blocks', () => {
  it('has none before its first lease, then issues the block in order without waiting', async () => {
    const leases = manualLeases();
    const source = new TokenSource(leases.lease, { blockSize: 8 });
    const filled = source.fill();
    assert.deepEqual(leases.asked, [8]);
    await leases.grant();
    assert.equal(await filled, true);
    assert.deepEqual([source.issue(), source.issue(), source.issue(), source.issue()], hex(0, 4));
  });

  it('leases the next block once half of what it holds is used, one lease at a time', async () => {
    const leases = manualLeases();
    const source = new TokenSource(leases.lease, { blockSize: 8 });
    await Promise.all([source.fill(), leases.grant()]);
    for (let i = 0; i < 3; i++) source.issue();
    assert.deepEqual(leases.asked, [8], '5 of 8 left: no lease yet');
    source.issue();
    assert.deepEqual(leases.asked, [8, 8], '4 of 8 left: the next block is leased');
    source.issue();
    source.issue();
    assert.deepEqual(leases.asked, [8, 8], 'no second lease while one is under way');
    await leases.grant();
    assert.equal(source.available, 10);
    assert.deepEqual(
      Array.from({ length: 10 }, () => source.issue()),
      hex(6, 10),
      'what was left, then the new block',
    );
  });

  it('hands out exactly what a lease gave, when the store skipped some tokens', async () => {
    const leases = manualLeases();
    const source = new TokenSource(leases.lease, { blockSize: 4 });
    await Promise.all([source.fill(), leases.grant(['00000a', '00000c'])]);
    assert.deepEqual([source.issue(), source.issue()], ['00000a', '00000c']);
  });
});

describe('a burst that outruns the lease waits for it, and makes the next leases larger', () => {
  it('gives undefined at once, a token once the lease comes, and doubles the block size up to the maximum', async () => {
    const leases = manualLeases();
    const source = new TokenSource(leases.lease, { blockSize: 4, maxBlockSize: 16 });
    await Promise.all([source.fill(), leases.grant()]);
    for (let i = 0; i < 4; i++) source.issue();
    assert.equal(source.issue(), undefined, 'none at hand while the lease is under way');
    assert.equal(source.blockSize, 8);
    assert.equal(source.issue(), undefined);
    assert.equal(source.blockSize, 8, 'one doubling for one dry spell');
    const waiting = [source.take(), source.take()];
    await leases.grant();
    assert.deepEqual(await Promise.all(waiting), hex(4, 2), 'the waiting requests get the new block first');
    assert.deepEqual(leases.asked, [4, 4, 8], 'the next lease is twice as large');
    assert.deepEqual([source.issue(), source.issue(), source.issue()], [...hex(6, 2), undefined]);
    assert.equal(source.blockSize, 16);
    await leases.grant();
    assert.deepEqual(
      Array.from({ length: 9 }, () => source.issue()),
      [...hex(8, 8), undefined],
    );
    assert.deepEqual(leases.asked, [4, 4, 8, 16]);
    assert.equal(source.blockSize, 16, 'never beyond the maximum');
  });
});

describe('a failed lease costs the requests waiting for it their token, and the next request tries again', () => {
  it('shares one attempt among the requests waiting, gives them none when it fails, and leases again for the next', async () => {
    const leases = manualLeases();
    const failures: string[] = [];
    const source = new TokenSource(leases.lease, {
      blockSize: 4,
      onLeaseFailed: (error) => failures.push(error.message),
      onLeaseRecovered: () => failures.push('recovered'),
    });
    const waiting = [source.take(), source.take(), source.take()];
    assert.deepEqual(leases.asked, [4], 'one lease for the three requests');
    await leases.fail(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined, undefined]);
    assert.deepEqual(failures, ['database or disk is full']);
    const again = source.take();
    assert.deepEqual(leases.asked, [4, 4], 'the next request tries again');
    await leases.grant();
    assert.equal(await again, '000000');
    assert.deepEqual(failures, ['database or disk is full', 'recovered']);
  });
});

describe('a request waits for a lease a short bound from its start, then goes without a token (a server that hangs)', () => {
  it('waits until waitMs after the lease started, gives undefined after it, says so once, and the lease that comes late brings the tokens back', async () => {
    const leases = manualLeases();
    const clock = manualClock();
    const said: string[] = [];
    const source = new TokenSource(leases.lease, {
      blockSize: 4,
      waitMs: 100,
      ...clock.options,
      onLeaseStalled: (waitMs) => said.push(`stalled ${waitMs}`),
      onLeaseRecovered: () => said.push('recovered'),
    });
    await Promise.all([source.fill(), leases.grant()]);
    for (let i = 0; i < 2; i++) source.issue();
    assert.deepEqual(leases.asked, [4, 4], 'the next lease starts at half, at 0 ms');
    await clock.advance(40);
    source.issue();
    source.issue();
    const first = source.take();
    await clock.advance(99);
    assert.equal(await Promise.race([first, 'waiting']), 'waiting', 'within the bound, the request waits');
    await clock.advance(100);
    assert.equal(await first, undefined, '100 ms after the lease started, it goes without');
    assert.deepEqual(said, ['stalled 100']);
    await clock.advance(5000);
    assert.equal(await source.take(), undefined, 'later requests do not wait for that lease at all');
    assert.deepEqual(said, ['stalled 100'], 'said once per lease');
    assert.deepEqual(leases.asked, [4, 4], 'one lease at a time, however long it takes');
    await leases.grant();
    assert.equal(await source.take(), hex(4, 1)[0], 'the late lease brings the tokens back');
    assert.deepEqual(said, ['stalled 100', 'recovered']);
  });
});

describe('while the store cannot be reached, no request waits, and the lease is tried again in the background after a delay that grows with each failure', () => {
  it('gives requests none at once while backing off, leases again by itself after 100 ms, 200 ms, 400 ms (at most), so the first request after the store is back has a token', async () => {
    const leases = manualLeases();
    const clock = manualClock();
    const failures: string[] = [];
    const source = new TokenSource(leases.lease, {
      blockSize: 4,
      backOff: (error) => (error as { code?: string }).code === 'ECONNREFUSED',
      retryFirstMs: 100,
      retryMaxMs: 400,
      ...clock.options,
      onLeaseFailed: (error) => failures.push(error.message),
      onLeaseRecovered: () => failures.push('recovered'),
    });
    const waiting = [source.take(), source.take(), source.take()];
    assert.deepEqual(leases.asked, [4], 'one lease for the three requests');
    const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await leases.fail(unavailable());
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined, undefined]);
    assert.deepEqual(failures, ['connect ECONNREFUSED 127.0.0.1:5432']);

    await clock.advance(99);
    assert.equal(await source.take(), undefined, 'within the delay: no token, at once');
    assert.equal(source.issue(), undefined);
    assert.deepEqual(leases.asked, [4], 'and no lease');
    await clock.advance(100);
    assert.deepEqual(leases.asked, [4, 4], 'the next attempt starts by itself once the delay is over');
    await leases.fail(unavailable());
    await clock.advance(299);
    assert.deepEqual(leases.asked, [4, 4], 'the delay doubles');
    await clock.advance(300);
    assert.deepEqual(leases.asked, [4, 4, 4]);
    await leases.fail(unavailable());
    await clock.advance(700);
    assert.deepEqual(leases.asked, [4, 4, 4, 4], 'up to retryMaxMs');
    await leases.fail(unavailable());
    await clock.advance(1099);
    assert.deepEqual(leases.asked, [4, 4, 4, 4]);
    await clock.advance(1100);
    assert.deepEqual(leases.asked, [4, 4, 4, 4, 4], 'and no more');
    // The store is back: the attempt under way succeeds before any request asks.
    await leases.grant();
    assert.deepEqual(failures.slice(-1), ['recovered']);
    assert.equal(source.issue(), '000000', 'the first request after it has a token, at once');
    assert.equal(await source.take(), '000001');
  });

  it('starts no lease once closed', async () => {
    const leases = manualLeases();
    const clock = manualClock();
    const source = new TokenSource(leases.lease, { blockSize: 4, backOff: () => true, ...clock.options });
    const filled = source.fill();
    await leases.fail(new Error('connect ECONNREFUSED'));
    assert.equal(await filled, false);
    source.close();
    await clock.advance(10_000);
    assert.equal(source.issue(), undefined);
    assert.deepEqual(leases.asked, [4]);
  });
});

describe('sources sharing one counter never issue a token twice', () => {
  it('issues 100,000 distinct 6-hex tokens from two sources leasing blocks of one counter in turn', async () => {
    const permutation = new TokenPermutation(Uint8Array.from({ length: 32 }, (_, i) => i * 7));
    let counter = 0;
    // The store's lease: consecutive counter values, each handed to one lease only.
    const lease = async (count: number) => {
      const start = counter;
      counter += count;
      return Array.from({ length: count }, (_, i) => permutation.token(start + i));
    };
    const sources = [new TokenSource(lease), new TokenSource(lease)];
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      const token = await sources[i % 2]!.take();
      assert.ok(token !== undefined && TOKEN_PATTERN.test(token), String(token));
      seen.add(token);
    }
    assert.equal(seen.size, 100_000);
  });
});
