/**
 * Issue 10, item 4: connections are bounded. A TLS handshake gets HANDSHAKE_TIMEOUT (1s
 * here), and beyond MAX_CONNECTIONS (3 here) new connections are closed at once, with a
 * warning in the log, while the open ones go on being served.
 */
import assert from 'node:assert/strict';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openRaw, statusLine, type RawConnection } from '../support/raw-tls.js';
import { ask, startService, type Service } from '../support/service.js';

let service: Service;
const sockets: Array<{ destroy(): unknown }> = [];
before(async () => {
  service = await startService({
    ROUTES: 'test/fixtures/limit-routes.ts',
    HANDSHAKE_TIMEOUT: '1s',
    MAX_CONNECTIONS: '3',
    LOG_LEVEL: 'warn',
  });
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await service.stop();
});

/** Before the fix the service waits 120 s: the test fails here instead. */
const BOUND = { timeout: 20_000 };

function tcp(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: 'localhost', port: service.port }, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

async function tls(): Promise<RawConnection> {
  const connection = await openRaw(service);
  sockets.push(connection.socket);
  return connection;
}

/** How a TLS client fares: its handshake completes, or the service closes the connection first. */
function tryTls(): Promise<'connected' | 'closed'> {
  return new Promise((resolve) => {
    const socket = connectTls({ host: 'localhost', port: service.port, ca: service.ca, servername: 'localhost' });
    sockets.push(socket);
    socket.once('secureConnect', () => resolve('connected'));
    socket.once('error', () => resolve('closed'));
    socket.once('close', () => resolve('closed'));
  });
}

describe('a TLS handshake that does not finish in HANDSHAKE_TIMEOUT is closed', () => {
  it('closes a connection that never starts its handshake', BOUND, async () => {
    const socket = await tcp();
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('closes a connection whose ClientHello stops half way', BOUND, async () => {
    const socket = await tcp();
    // A handshake record header announcing 512 bytes, then the first few of them.
    socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]));
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('serves a client that completes its handshake', async () => {
    assert.equal((await ask(service, { path: '/hello' })).status, 200);
  });
});

describe('beyond MAX_CONNECTIONS new connections are refused, the open ones served', () => {
  it('closes the fourth connection at once and logs it, then admits one when a place is free', async () => {
    const held = [await tls(), await tls(), await tls()];
    assert.equal(await tryTls(), 'closed');
    // The line reaches the test through the service's stdout: wait for it a little.
    const refused = /"msg":"Refused 1 connection: MAX_CONNECTIONS \(3\) are open"/;
    for (let i = 0; i < 50 && !refused.test(service.output()); i++) await sleep(20);
    assert.match(service.output(), refused);

    // The open connections are served as before.
    held[0]!.socket.write(`GET /hello HTTP/1.1\r\nHost: localhost:${service.port}\r\nConnection: close\r\n\r\n`);
    await held[0]!.closed;
    assert.equal(statusLine(held[0]!.received()), 'HTTP/1.1 200 OK');

    // Its place is free once the service has seen the close.
    let outcome = await tryTls();
    for (let i = 0; i < 20 && outcome === 'closed'; i++) {
      await sleep(50);
      outcome = await tryTls();
    }
    assert.equal(outcome, 'connected');
  });
});

// Issue 27, item 8: the system refuses connections past the open-file limit before Node sees them.
describe('running out of file descriptors is logged, once a while', () => {
  it('logs one line when connections reach the open-file limit, and keeps serving', BOUND, async () => {
    const limited = await startService({ TLS: '0', LOG_LEVEL: 'warn' }, { openFileLimit: 120 });
    const held: Socket[] = [];
    try {
      await Promise.all(
        Array.from(
          { length: 150 },
          () =>
            new Promise<void>((resolve) => {
              const socket = connectTcp({ host: 'localhost', port: limited.port }, () => resolve());
              socket.on('error', () => resolve());
              socket.on('close', () => resolve());
              held.push(socket);
            }),
        ),
      );
      // On a loaded machine the service may take a while to accept them all.
      const said = () => limited.output().match(/Out of file descriptors[^"]*/g) ?? [];
      for (let waited = 0; waited < 10_000 && said().length === 0; waited += 100) await sleep(100);
      await sleep(1500);
      const lines = said();
      assert.equal(lines.length, 1, limited.output());
      assert.match(
        lines[0]!,
        /^Out of file descriptors \(\d+ open, ulimit -n 120\): new connections are refused by the system; raise the limit \(ulimit -n, systemd's LimitNOFILE\) or lower MAX_CONNECTIONS$/,
      );
      for (const socket of held) socket.destroy();
      await sleep(200);
      assert.equal((await ask(limited, { path: '/robots.txt' })).status, 404);
    } finally {
      for (const socket of held) socket.destroy();
      await limited.stop();
    }
  });
});
