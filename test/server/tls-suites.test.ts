/**
 * Issue 41, item 7: HTTPS offers TLS 1.2 only with forward-secret AEAD suites (ECDHE with
 * AES-GCM or ChaCha20-Poly1305), never static RSA or CBC; TLS 1.3 as Node offers it. Over
 * real sockets, with the development certificate (RSA) and an operator's ECDSA one.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { startInProcess } from '../support/in-process-service.js';
import type { Service } from '../support/service.js';
import { startTogether } from '../support/start-together.js';

type Handshake = { version: string | null; cipher: string } | { refused: string };

/** One TLS handshake with the service, the client offering only what `options` allow. */
function handshake(service: Service, options: ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = connect({ host: 'localhost', port: service.port, ca: service.ca, ...options }, () => {
      resolve({ version: socket.getProtocol(), cipher: socket.getCipher().name });
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ refused: error.code ?? error.message }));
  });
}

/** An operator's certificate for localhost with a P-256 key, as TLS_CERT and TLS_KEY. */
async function ecdsaCertificate(): Promise<{ TLS_CERT: string; TLS_KEY: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'vigil-ecdsa-'));
  writeFileSync(join(dir, 'ecdsa.crt'), pems.cert);
  writeFileSync(join(dir, 'ecdsa.key'), pems.private, { mode: 0o600 });
  return { TLS_CERT: join(dir, 'ecdsa.crt'), TLS_KEY: join(dir, 'ecdsa.key') };
}

let rsa: Service;
let ecdsa: Service;
before(async () => {
  const files = await ecdsaCertificate();
  [rsa, ecdsa] = await startTogether<[Service, Service]>([startInProcess(), startInProcess(files)], (service) =>
    service.stop(),
  );
});
after(() => Promise.all([rsa?.stop(), ecdsa?.stop()]));

const TLS12 = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;

describe('TLS 1.2 is offered with forward-secret AEAD suites only', () => {
  it('serves the development certificate with an RSA key, which the ECDHE-RSA suites need', () => {
    assert.equal(new X509Certificate(rsa.ca!).publicKey.asymmetricKeyType, 'rsa');
  });

  it('agrees on ECDHE with AES-GCM or ChaCha20-Poly1305', async () => {
    for (const cipher of ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'])
      assert.deepEqual(await handshake(rsa, { ...TLS12, ciphers: cipher }), { version: 'TLSv1.2', cipher });
  });

  it('refuses a client that offers only static RSA, CBC or finite-field DHE suites', async () => {
    const agreed: string[] = [];
    for (const cipher of [
      'AES128-SHA256',
      'AES256-SHA',
      'AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-SHA256',
      'ECDHE-RSA-AES256-SHA',
      'DHE-RSA-AES128-GCM-SHA256',
    ]) {
      const answer = await handshake(rsa, { ...TLS12, ciphers: cipher });
      if ('refused' in answer) assert.match(answer.refused, /HANDSHAKE_FAILURE/, cipher);
      else agreed.push(answer.cipher);
    }
    assert.deepEqual(agreed, []);
  });

  it("agrees on ECDHE-ECDSA with AES-GCM with an operator's ECDSA certificate, and refuses its CBC suite", async () => {
    assert.equal(new X509Certificate(ecdsa.ca!).publicKey.asymmetricKeyType, 'ec');
    for (const cipher of ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'])
      assert.deepEqual(await handshake(ecdsa, { ...TLS12, ciphers: cipher }), { version: 'TLSv1.2', cipher });
    const cbc = await handshake(ecdsa, { ...TLS12, ciphers: 'ECDHE-ECDSA-AES128-SHA256' });
    assert.ok('refused' in cbc, JSON.stringify(cbc));
  });
});

describe('TLS 1.3 keeps its suites', () => {
  it('is chosen by a client that offers it, with each of its three suites', async () => {
    assert.deepEqual(await handshake(rsa, {}), { version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384' });
    for (const cipher of ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'])
      assert.deepEqual(await handshake(rsa, { minVersion: 'TLSv1.3', ciphers: cipher }), {
        version: 'TLSv1.3',
        cipher,
      });
  });

  it('refuses TLS 1.1', async () => {
    const old = await handshake(rsa, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.ok('refused' in old, JSON.stringify(old));
  });
});
