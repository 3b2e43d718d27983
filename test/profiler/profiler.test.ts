/** Issue 3, writer and store as the kernel runs them: shutdown flush, dropped reports shown, retention, aborted requests, failed token leases. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import profiledRoutes, { routesModule } from '../fixtures/profiled-routes.js';
import { startKernel } from '../support/kernel.js';
import { tokenOf } from '../support/answers.js';
import { DelegatingStore, openStoreOf, storedTokens, storeOf } from '../support/stores.js';
import { TOKEN_PATTERN } from '../../src/profiler/tokens/token.js';

describe('on shutdown the write queue is flushed', () => {
  it('stores every queued report when the kernel closes', async () => {
    const kernel = await startKernel({ LOG_LEVEL: 'info' }, { profilerWriter: { flushDelayMs: 60_000 } });
    const tokens: string[] = [];
    for (let i = 0; i < 30; i++) tokens.push(tokenOf(await kernel.app.inject({ url: `/queued/${i}` })));
    assert.equal(kernel.profiler!.writer.queued, 30, 'the reports are still queued when the kernel closes');
    await kernel.close();
    const store = await openStoreOf(kernel.varDir);
    try {
      assert.deepEqual(await storedTokens(store), tokens.sort());
    } finally {
      await store.close();
    }
    assert.ok(kernel.logLines.some((line) => line.includes('"msg":"Debug reports: 30 written, 0 dropped"')));
  });
});

describe('dropped reports are counted where people look: the profiler and the log', () => {
  it('shows the count on /_profiler and logs a warning', async () => {
    const kernel = await startKernel({}, { profilerWriter: { maxQueue: 2, flushDelayMs: 60_000 } });
    try {
      for (let i = 0; i < 5; i++) await kernel.app.inject({ url: `/overflow/${i}` });
      assert.equal(kernel.profiler!.writer.dropped, 3);
      const page = await kernel.app.inject({ url: '/_profiler' });
      assert.match(page.body, /<span class="bad" id="dropped"><b>3<\/b> dropped since start<\/span>/);
      const warning = kernel.logLines
        .map((line) => JSON.parse(line) as { level: number; msg: string; dropped?: number })
        .find((line) => line.level === 40);
      assert.equal(warning?.msg, 'Debug reports dropped because the write queue is full (2 reports): 1 since start');
      assert.equal(warning?.dropped, 1);
    } finally {
      await kernel.close();
    }
    const closing = kernel.logLines.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg);
    assert.ok(
      closing.includes('Debug reports dropped because the write queue is full (2 reports): 3 since start'),
      closing.join('\n'),
    );
  });
});

describe('a report the write queue cannot take is dropped before the request is profiled: no token is given for it', () => {
  it('answers the requests beyond a full queue without a token, counts them as dropped, and every token given opens its report', async () => {
    const kernel = await startKernel({}, { profilerWriter: { maxQueue: 3, flushDelayMs: 60_000 } });
    try {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await kernel.app.inject({ url: `/full/${i}` }));
      const tokens = answers.map((answer) => answer.headers['x-debug-token']);
      assert.equal(tokens.filter((token) => token !== undefined).length, 3, `tokens: ${JSON.stringify(tokens)}`);
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        [404, 404, 404, 404, 404, 404],
      );
      assert.equal(kernel.profiler!.writer.dropped, 3);
      for (const token of tokens)
        if (token !== undefined) assert.equal((await kernel.report(String(token))).token, token);
    } finally {
      await kernel.close();
    }
  });
});

describe('retention is enforced while the service runs', () => {
  it('keeps PROFILER_MAX_REPORTS reports, deleting the oldest as new ones are written', async () => {
    const kernel = await startKernel({ PROFILER_MAX_REPORTS: '5' }, { profilerWriter: { flushDelayMs: 1 } });
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 20; i++) {
        tokens.push(tokenOf(await kernel.app.inject({ url: `/kept/${i}` })));
        // Times are in milliseconds: apart, so that "newest" has one answer.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await kernel.profiler!.writer.flush();
      const stored = await storedTokens(kernel.profiler!.store);
      assert.equal(stored.length, 5);
      assert.deepEqual(stored.sort(), tokens.slice(-5).sort());
      assert.equal(kernel.profiler!.writer.purged, 15);
    } finally {
      await kernel.close();
    }
  });
});

describe('a request whose client leaves before the answer still gets its report', () => {
  it('is stored with status 499 and marked aborted', async () => {
    const kernel = await startKernel({ ISOLATED_WORKERS: '1' }, { routes: [profiledRoutes], routesModule });
    try {
      await kernel.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = kernel.app.server.address() as { port: number };
      const received = await new Promise<string>((resolve, reject) => {
        let data = '';
        // /slow answers after 40 ms; the client leaves as soon as the service has its request.
        kernel.app.server.once('request', () => {
          socket.destroy();
          resolve(data);
        });
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`GET /slow?left=early HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
        );
        socket.on('data', (chunk: Buffer) => (data += chunk));
        socket.on('error', reject);
      });
      assert.equal(received, '', 'the client left before any answer');
      // The handler goes on after the client left; its report is queued when the request ends.
      let found: { token: string; status: number } | undefined;
      for (let tries = 0; !found && tries < 500; tries++) {
        if (tries > 0) await sleep(10);
        await kernel.profiler!.writer.flush();
        [found] = (await kernel.profiler!.store.search({ url: 'left=early' })).reports;
      }
      assert.equal(found?.status, 499);
      const report = await kernel.profiler!.read(found!.token);
      assert.equal((report!.collectors.response as { aborted: boolean }).aborted, true);
      assert.equal((report!.collectors.request as { remoteAddress: string }).remoteAddress, '127.0.0.1');
    } finally {
      await kernel.close();
    }
  });

  it('on a connection that served others first, reports only the request in flight as 499', async () => {
    const kernel = await startKernel({ ISOLATED_WORKERS: '1' }, { routes: [profiledRoutes], routesModule });
    try {
      await kernel.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = kernel.app.server.address() as { port: number };
      const head = (target: string) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        // Three answered on the connection, then one it leaves 5 ms in, with another pipelined behind it.
        kernel.app.server.on('request', (request) => {
          if (request.url?.startsWith('/wait-40ms?gone')) setTimeout(() => (socket.destroy(), resolve()), 5);
        });
        let data = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(head('/wait-40ms?kept=1')));
        socket.on('data', (chunk: Buffer) => {
          data += chunk;
          const answered = data.split('HTTP/1.1 200').length - 1;
          if (answered > seen && answered < 3) socket.write(head(`/wait-40ms?kept=${answered + 1}`));
          if (answered === 3 && seen < 3) socket.write(head('/wait-40ms?gone=1') + head('/wait-40ms?gone=2'));
          seen = answered;
        });
        socket.on('error', reject);
      });
      const reports = async () => {
        await kernel.profiler!.writer.flush();
        return (await kernel.profiler!.store.search({ limit: 20 })).reports;
      };
      let found = await reports();
      for (let tries = 0; found.length < 5 && tries < 500; tries++) {
        await sleep(10);
        found = await reports();
      }
      const status = (url: string) => found.filter((report) => report.url.includes(url)).map((report) => report.status);
      assert.deepEqual(status('kept='), [200, 200, 200]);
      // Node reads the pipelined one as the first is served: both were in flight when the client left.
      assert.deepEqual(status('gone='), [499, 499]);
    } finally {
      await kernel.close();
    }
  });
});

describe('a store that cannot lease tokens costs reports, never answers', () => {
  /** The real store, whose token leases fail as on a full disk while `failing` is set. */
  class FailingLeases extends DelegatingStore {
    failing = true;
    override async leaseTokens(count: number) {
      if (this.failing) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return this.inner.leaseTokens(count);
    }
  }

  it('starts and answers without a token while leases fail, counts the reports lost, and profiles again once the store leases', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-no-lease-'));
    const store = new FailingLeases(storeOf(varDir));
    const kernel = await startKernel({ VAR_DIR: varDir, LOG_LEVEL: 'info' }, { reportStore: store });
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await kernel.app.inject({ url: `/without-token/${i}` });
        assert.equal(answer.statusCode, 404);
        assert.equal(answer.headers['x-debug-token'], undefined, 'no token for a report that cannot be stored');
      }
      assert.equal(kernel.profiler!.writer.dropped, 5);
      assert.ok(
        kernel.logLines.some((line) => line.includes('token lease failed: SQLITE_FULL: database or disk is full')),
        kernel.logLines.join(''),
      );
      const page = await kernel.app.inject({ url: '/_profiler' });
      assert.match(page.body, /id="dropped"><b>5<\/b> dropped since start/);

      store.failing = false;
      const token = tokenOf(await kernel.app.inject({ url: '/with-token' }));
      assert.match(token, TOKEN_PATTERN);
      assert.match((await kernel.report(token)).url, /\/with-token$/);
    } finally {
      await kernel.close();
    }
    // Failures are logged at most once a second, with counts; the recovery line is written by the close at the latest.
    assert.ok(
      kernel.logLines.some((line) => /token lease failed.*it succeeds again/.test(line)),
      kernel.logLines.join(''),
    );
  });
});
