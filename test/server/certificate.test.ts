/**
 * The development certificate under VAR_DIR/tls: instances that start together on one
 * VAR_DIR race to create it, and every one of them must end up serving the pair on disk
 * (the loser reads the winner's); a pair that does not belong together is replaced.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadTlsMaterial } from '../../src/server/certificate.js';
import { sharedCertificate } from '../support/certificate.js';
import { ask, startService, type Service } from '../support/service.js';

/** The pair on disk, checked to belong together. */
function pairOnDisk(varDir: string): { cert: string; key: string } {
  const cert = readFileSync(join(varDir, 'tls', 'localhost.crt'), 'utf8');
  const key = readFileSync(join(varDir, 'tls', 'localhost.key'), 'utf8');
  assert.ok(new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)), "the key on disk is the certificate's");
  return { cert, key };
}

describe('instances starting together on one VAR_DIR share one development certificate', () => {
  it('has three services, started at once, each serve the certificate on disk', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-cert-race-'));
    const started = await Promise.allSettled(
      [0, 1, 2].map(() => startService({ VAR_DIR: varDir }, { ownCertificate: true })),
    );
    const services = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      assert.equal(
        services.length,
        3,
        started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started')).join('\n'),
      );
      const { cert } = pairOnDisk(varDir);
      for (const service of services) {
        const answer = await ask({ ...service, ca: cert } as Service, { path: '/robots.txt' });
        assert.equal(answer.status, 404, 'the client trusting the file on disk verified this instance');
      }
      assert.deepEqual(
        readdirSync(varDir).filter((name) => name !== 'tls' && !name.startsWith('profiler')),
        [],
        'no temporary file or directory is left',
      );
    } finally {
      await Promise.all(services.map((service) => service.stop()));
    }
  });

  it('gives concurrent starts in one process the one pair that is on disk', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'vigil-cert-race-'));
    const config = { varDir, tlsCert: undefined, tlsKey: undefined };
    const loaded = await Promise.all([loadTlsMaterial(config), loadTlsMaterial(config)]);
    const { cert, key } = pairOnDisk(varDir);
    for (const material of loaded) assert.deepEqual([material.cert, material.key], [cert, key]);
    assert.equal(loaded.filter((material) => material.created).length, 1, 'one of them created it');
  });
});

describe('a pair on disk that does not belong together is replaced', () => {
  it("replaces a valid certificate whose key is another's, and one that is not a certificate", async () => {
    const shared = await sharedCertificate();
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    for (const [cert, key] of [
      [readFileSync(shared.TLS_CERT, 'utf8'), otherKey],
      ['not a certificate', readFileSync(shared.TLS_KEY, 'utf8')],
    ] as const) {
      const varDir = mkdtempSync(join(tmpdir(), 'vigil-cert-bad-'));
      mkdirSync(join(varDir, 'tls'));
      writeFileSync(join(varDir, 'tls', 'localhost.crt'), cert);
      writeFileSync(join(varDir, 'tls', 'localhost.key'), key);
      const material = await loadTlsMaterial({ varDir, tlsCert: undefined, tlsKey: undefined });
      assert.equal(material.created, true);
      const onDisk = pairOnDisk(varDir);
      assert.deepEqual([material.cert, material.key], [onDisk.cert, onDisk.key]);
    }
  });
});
