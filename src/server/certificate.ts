/**
 * The TLS certificate: the operator's (TLS_CERT/TLS_KEY), or a self-signed one for
 * localhost, 127.0.0.1 and ::1, created on first start under VAR_DIR and reused while valid.
 */
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { importOptional } from '../optional-package.js';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** Where the certificate was read from or written to. */
  certFile: string;
  /** True when this start created the certificate. */
  created: boolean;
}

const DEV_HOSTS = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] };
const VALIDITY_DAYS = 365;

export async function loadTlsMaterial(config: Pick<Config, 'tlsCert' | 'tlsKey' | 'varDir'>): Promise<TlsMaterial> {
  if (config.tlsCert && config.tlsKey) {
    return { cert: readPem(config.tlsCert, 'TLS_CERT'), key: readPem(config.tlsKey, 'TLS_KEY'), certFile: config.tlsCert, created: false };
  }
  const dir = join(config.varDir, 'tls');
  const certFile = join(dir, 'localhost.crt');
  const keyFile = join(dir, 'localhost.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    if (stillValid(cert)) return { cert, key: readFileSync(keyFile, 'utf8'), certFile, created: false };
  }
  // Loaded only to make one: its X.509 library costs about 170 ms of CPU to load, at every start.
  const { generate } = await importOptional('selfsigned', 'The development certificate', () => import('selfsigned'));
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + VALIDITY_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...DEV_HOSTS.dns.map((value) => ({ type: 2 as const, value })), ...DEV_HOSTS.ips.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  // VAR_DIR holds this key and the debug reports: its owner's alone (the store makes it so too).
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  writeFileSync(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, certFile, created: true };
}

function readPem(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Valid for at least another day and still naming every development host. */
export function stillValid(pem: string): boolean {
  try {
    const cert = new X509Certificate(pem);
    const names = cert.subjectAltName ?? '';
    return (
      new Date(cert.validTo).getTime() > Date.now() + 86_400_000 &&
      DEV_HOSTS.dns.every((name) => names.includes(`DNS:${name}`)) &&
      DEV_HOSTS.ips.every((ip) => cert.checkIP(ip) !== undefined)
    );
  } catch {
    return false;
  }
}
