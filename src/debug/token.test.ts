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

const hex = (from: number, count: number) => Array.from({ length: count }, (_, i) => (from + i).toString(16).padStart(6, '0'));

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
    assert.deepEqual(Array.from({ length: 10 }, () => source.issue()), hex(6, 10), 'what was left, then the new block');
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
    assert.deepEqual(Array.from({ length: 9 }, () => source.issue()), [...hex(8, 8), undefined]);
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

describe('while the store cannot be reached, requests neither wait nor lease until a delay that grows with each failure is over', () => {
  it('shares one attempt among the requests waiting, gives them none when it fails, and tries again only after 100 ms, 200 ms, 400 ms (at most)', async () => {
    const leases = manualLeases();
    const failures: string[] = [];
    let now = 0;
    const source = new TokenSource(leases.lease, {
      blockSize: 4,
      backOff: (error) => (error as { code?: string }).code === 'ECONNREFUSED',
      retryFirstMs: 100,
      retryMaxMs: 400,
      now: () => now,
      onLeaseFailed: (error) => failures.push(error.message),
      onLeaseRecovered: () => failures.push('recovered'),
    });
    const waiting = [source.take(), source.take(), source.take()];
    assert.deepEqual(leases.asked, [4], 'one lease for the three requests');
    const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await leases.fail(unavailable());
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined, undefined]);
    assert.deepEqual(failures, ['connect ECONNREFUSED 127.0.0.1:5432']);

    now = 99;
    assert.equal(await source.take(), undefined, 'within the delay: no token, at once');
    assert.equal(source.issue(), undefined);
    assert.deepEqual(leases.asked, [4], 'and no lease');
    now = 100;
    assert.equal(await source.take(), undefined, 'the request that starts the next attempt does not wait for it');
    assert.deepEqual(leases.asked, [4, 4]);
    assert.equal(await source.take(), undefined, 'nor do the requests while it is under way');
    assert.deepEqual(leases.asked, [4, 4]);
    await leases.fail(unavailable());

    now = 299;
    source.issue();
    assert.deepEqual(leases.asked, [4, 4], 'the delay doubles');
    now = 300;
    source.issue();
    assert.deepEqual(leases.asked, [4, 4, 4]);
    await leases.fail(unavailable());
    now = 700;
    source.issue();
    assert.deepEqual(leases.asked, [4, 4, 4, 4], 'up to retryMaxMs');
    await leases.fail(unavailable());
    now = 1100;
    source.issue();
    assert.deepEqual(leases.asked, [4, 4, 4, 4, 4], 'and no more');
    await leases.grant();
    assert.deepEqual(failures.slice(-1), ['recovered']);
    assert.equal(await source.take(), '000000', 'once a lease succeeds, requests have tokens again');
    assert.equal(source.issue(), '000001');
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
