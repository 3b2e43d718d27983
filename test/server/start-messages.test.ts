/**
 * Issue 27, item 7: a start that fails says so in one line naming the setting and the
 * cause, never with a stack; a certificate out of its dates starts with a warning.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { sharedCertificate, type CertificateFiles } from '../support/certificate.js';
import { startInProcess } from '../support/in-process-service.js';
import { ROOT } from '../support/root.js';
import { runMain, type Service } from '../support/service.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-start-messages-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const freshVarDir = (): string => mkdtempSync(join(tmpdir(), 'vigil-start-'));

/** A localhost certificate valid from `from` to `to`, with its key. */
async function certificateFor(name: string, from: Date, to: Date): Promise<CertificateFiles> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: from,
    notAfterDate: to,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  return { TLS_CERT: file(`${name}.crt`, pems.cert), TLS_KEY: file(`${name}.key`, pems.private) };
}

/** Whether a user other than the owner may reach `path` (it and every directory on its way searchable). */
function othersMayRun(path: string): boolean {
  for (let at = path; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (at === dirname(at)) return true;
  }
}

/** The one line of a start that failed, checked to be one line and no stack. */
async function failedStart(env: Record<string, string>, user: { uid?: number; gid?: number } = {}): Promise<string> {
  const { code, stderr } = await runMain({ VAR_DIR: freshVarDir(), ...env }, [], user);
  assert.equal(code, 1, stderr);
  assert.doesNotMatch(stderr, /^\s+at /m, 'a stack');
  const lines = stderr.split('\n');
  assert.deepEqual([lines.length, lines.at(-1)], [2, ''], stderr);
  return lines[0]!;
}

let valid: CertificateFiles;
before(async () => {
  valid = await sharedCertificate();
});

describe('TLS_CERT and TLS_KEY are checked at start, each named when wrong', () => {
  it('a TLS_CERT that is no PEM certificate', async () => {
    const line = await failedStart({ TLS_CERT: file('garbage.crt', 'not a certificate\n'), TLS_KEY: valid.TLS_KEY });
    assert.match(line, /^vigil: cannot start: TLS_CERT: \S+garbage\.crt is not a PEM certificate/);
  });

  it('a TLS_KEY that is no PEM private key', async () => {
    const line = await failedStart({ TLS_CERT: valid.TLS_CERT, TLS_KEY: file('garbage.key', 'not a key\n') });
    assert.match(line, /^vigil: cannot start: TLS_KEY: \S+garbage\.key is not a PEM private key/);
  });

  it('a TLS_KEY that belongs to another certificate', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const line = await failedStart({ TLS_CERT: valid.TLS_CERT, TLS_KEY: file('other.key', other) });
    assert.match(line, /^vigil: cannot start: TLS_KEY: \S+other\.key is not the key of TLS_CERT \S+localhost\.crt$/);
  });

  it('a TLS_KEY encrypted with a passphrase', async () => {
    const encrypted = createPrivateKey(readFileSync(valid.TLS_KEY, 'utf8')).export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'secret',
    }) as string;
    const line = await failedStart({ TLS_CERT: valid.TLS_CERT, TLS_KEY: file('encrypted.key', encrypted) });
    assert.match(
      line,
      /^vigil: cannot start: TLS_KEY: \S+encrypted\.key is encrypted: vigil needs the key without a passphrase/,
    );
  });
});

describe('a VAR_DIR that cannot be used is named, not taken for a listen error', () => {
  it('a VAR_DIR that is a file', async () => {
    const line = await failedStart({ VAR_DIR: file('var-is-a-file', '') });
    // The store is opened before the certificate is made: whichever meets the file first says so.
    assert.match(
      line,
      /^vigil: cannot start: VAR_DIR: (cannot create \S+var-is-a-file\/tls: ENOTDIR \(not a directory\)|the report store \S+var-is-a-file\/profiler\.sqlite cannot be opened: EEXIST: file already exists, mkdir \S+)$/,
    );
  });

  it('a VAR_DIR its user may not write', async (t) => {
    const closed = [process.execPath, ROOT].find((path) => !othersMayRun(path));
    if (process.getuid?.() === 0 && closed !== undefined) {
      t.skip(`nobody may not reach ${closed}: a directory on its way is closed to others`);
      return;
    }
    const parent = mkdtempSync(join(tmpdir(), 'vigil-read-only-'));
    const varDir = join(parent, 'var');
    mkdirSync(varDir);
    chmodSync(parent, 0o755);
    chmodSync(varDir, 0o555);
    // Root may write anywhere: the service runs as nobody then.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const line = await failedStart({ VAR_DIR: varDir }, user);
    assert.match(
      line,
      /^vigil: cannot start: VAR_DIR: (cannot create \S+\/var\/tls: EACCES \(permission denied\)|the report store \S+\/var\/profiler\.sqlite cannot be opened: EACCES: permission denied, open \S+)$/,
    );
  });
});

describe('listen errors still name HOST and PORT', () => {
  it('a PORT in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, 'localhost', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const line = await failedStart({ PORT: String(port), TLS: '0' });
      assert.match(line, /^vigil: cannot start: listen EADDRINUSE: address already in use \S+ \(set HOST or PORT\)$/);
    } finally {
      taken.close();
    }
  });

  it('a HOST that does not resolve', async () => {
    const line = await failedStart({ HOST: 'no-such-host.invalid', TLS: '0' });
    assert.match(line, /^vigil: cannot start: HOST: no-such-host\.invalid cannot be resolved \(ENOTFOUND\)$/);
  });
});

describe('a TLS_CERT out of its dates starts, with a warning naming them', () => {
  const running: Service[] = [];
  after(() => Promise.all(running.map((service) => service.stop())));
  const day = 86_400_000;

  it('an expired certificate', async () => {
    const expired = await certificateFor('expired', new Date(Date.now() - 30 * day), new Date(Date.now() - day));
    const service = await startInProcess({ ...expired, LOG_LEVEL: 'warn' });
    running.push(service);
    assert.match(
      service.output(),
      /"msg":"TLS_CERT \S+expired\.crt expired on [^"]+: clients that check certificates will refuse this service"/,
    );
  });

  it('a certificate not valid yet', async () => {
    const future = await certificateFor('future', new Date(Date.now() + day), new Date(Date.now() + 30 * day));
    const service = await startInProcess({ ...future, LOG_LEVEL: 'warn' });
    running.push(service);
    assert.match(
      service.output(),
      /"msg":"TLS_CERT \S+future\.crt is not valid before [^"]+: clients that check certificates will refuse this service"/,
    );
  });

  it('a valid certificate brings no warning', async () => {
    const service = await startInProcess({ ...valid, LOG_LEVEL: 'warn' });
    running.push(service);
    assert.doesNotMatch(service.output(), /TLS_CERT/);
  });
});
