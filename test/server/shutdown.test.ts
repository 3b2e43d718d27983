/**
 * Issue 10, item 9: SIGTERM has a deadline. Requests in flight get SHUTDOWN_TIMEOUT; then
 * the connections still open are closed, the queued reports are written and the process
 * exits 0, saying what it cut. A second signal cuts at once.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { openRaw, type RawConnection } from '../support/raw-tls.js';
import { ask, startService, type Service } from '../support/service.js';
import { openStoreOf, storedTokens } from '../support/stores.js';

const running: Service[] = [];
const connections: RawConnection[] = [];
after(async () => {
  for (const connection of connections) connection.socket.destroy();
  await Promise.all(running.map((service) => service.stop()));
});

async function service(env: Record<string, string>): Promise<Service> {
  const started = await startService({ ROUTES: 'test/fixtures/limit-routes.ts', LOG_LEVEL: 'info', ...env });
  running.push(started);
  return started;
}

/** Before the fix the process never exits: the test fails here instead of waiting for ever. */
const BOUND = { timeout: 20_000 };

/** A client that sent its request head and part of its body, and then nothing. */
async function stuckRequest(target: Service): Promise<RawConnection> {
  const connection = await openRaw(target);
  connections.push(connection);
  connection.socket.write(
    `POST /echo HTTP/1.1\r\nHost: localhost:${target.port}\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten b`,
  );
  // Let the service read the head, so that the request is in flight.
  await sleep(300);
  return connection;
}

async function tokensStoredBy(target: Service): Promise<string[]> {
  const store = await openStoreOf(target.varDir);
  try {
    return await storedTokens(store);
  } finally {
    await store.close();
  }
}

describe('after SHUTDOWN_TIMEOUT the connections still open are closed, and the process exits 0', () => {
  it('cuts a request stuck in its body, logs it, writes the reports and exits 0', BOUND, async () => {
    const target = await service({ SHUTDOWN_TIMEOUT: '1s' });
    const hello = await ask(target, { path: '/hello' });
    const stuck = await stuckRequest(target);
    target.signal('SIGTERM');
    assert.deepEqual(await target.exited, { code: 0, signal: null });
    await stuck.closed;
    assert.match(target.output(), /"msg":"SHUTDOWN_TIMEOUT \(1s\) passed: closing 1 connection still open"/);
    assert.match(target.output(), /"msg":"Debug reports: \d+ written, 0 dropped"/);
    assert.ok((await tokensStoredBy(target)).includes(String(hello.headers['x-debug-token'])));
  });

  it('lets a request that ends within SHUTDOWN_TIMEOUT finish, and cuts nothing', BOUND, async () => {
    const target = await service({ SHUTDOWN_TIMEOUT: '10s' });
    const slow = ask(target, { path: '/slow?ms=1500' });
    await sleep(300);
    target.signal('SIGTERM');
    assert.equal((await slow).status, 200);
    assert.deepEqual(await target.exited, { code: 0, signal: null });
    assert.doesNotMatch(target.output(), /SHUTDOWN_TIMEOUT \(10s\) passed/);
  });
});

describe('a second signal closes what is open at once, after writing the reports', () => {
  it('exits 0 on the second SIGTERM long before SHUTDOWN_TIMEOUT', BOUND, async () => {
    const target = await service({ SHUTDOWN_TIMEOUT: '300s' });
    const hello = await ask(target, { path: '/hello' });
    await stuckRequest(target);
    target.signal('SIGTERM');
    while (!/SIGTERM: closing connections/.test(target.output())) await sleep(20);
    target.signal('SIGTERM');
    assert.deepEqual(await target.exited, { code: 0, signal: null });
    assert.match(target.output(), /"msg":"SIGTERM again: closing 1 connection still open at once"/);
    assert.match(target.output(), /"msg":"Debug reports: \d+ written, 0 dropped"/);
    assert.ok((await tokensStoredBy(target)).includes(String(hello.headers['x-debug-token'])));
  });
});

// Issue 27, item 8: Node does not count a connection that never sent a request as idle.
describe('connections that never sent a request are closed when the stop begins', () => {
  it('does not wait SHUTDOWN_TIMEOUT for a preconnected idle TLS connection', BOUND, async () => {
    const target = await service({ SHUTDOWN_TIMEOUT: '300s' });
    const preconnected = await openRaw(target);
    connections.push(preconnected);
    target.signal('SIGTERM');
    // A generous bound: before the change the process waited the whole SHUTDOWN_TIMEOUT.
    const outcome = await Promise.race([target.exited, sleep(10_000).then(() => 'still running after 10 s')]);
    assert.deepEqual(outcome, { code: 0, signal: null });
    await preconnected.closed;
    assert.doesNotMatch(target.output(), /SHUTDOWN_TIMEOUT \(300s\) passed/);
  });

  it('still lets a request in flight finish, then exits', BOUND, async () => {
    const target = await service({ SHUTDOWN_TIMEOUT: '300s' });
    const preconnected = await openRaw(target);
    connections.push(preconnected);
    const slow = ask(target, { path: '/slow?ms=1500' });
    await sleep(300);
    target.signal('SIGTERM');
    assert.equal((await slow).status, 200);
    await preconnected.closed;
    const outcome = await Promise.race([
      target.exited,
      sleep(10_000).then(() => 'still running 10 s after the request'),
    ]);
    assert.deepEqual(outcome, { code: 0, signal: null });
  });
});
