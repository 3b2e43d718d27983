/**
 * The TLS certificate: the operator's (TLS_CERT/TLS_KEY), or a self-signed one for
 * localhost, 127.0.0.1 and ::1, created on first start under VAR_DIR and reused while valid;
 * instances starting together on one VAR_DIR end up with the same one.
 */
import { createPrivateKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ConfigError, type Config } from '../config/index.js';
import { importOptional } from '../optional-package.js';

interface TlsMaterial {
  key: string;
  cert: string;
  /** Where the certificate was read from or written to. */
  certFile: string;
  /** True when this start created the certificate. */
  created: boolean;
  /** Why a created certificate could not be written (a full disk): it is then kept in memory for this run only. */
  unsaved?: string;
  /** Said at start: the operator's certificate is out of its dates. */
  warning?: string;
}

const DEV_HOSTS = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] };
const VALIDITY_DAYS = 365;

export async function loadTlsMaterial(config: Pick<Config, 'tlsCert' | 'tlsKey' | 'varDir'>): Promise<TlsMaterial> {
  if (config.tlsCert && config.tlsKey) {
    const cert = readPem(config.tlsCert, 'TLS_CERT');
    const key = readPem(config.tlsKey, 'TLS_KEY');
    const warning = checkOperatorMaterial(cert, key, config.tlsCert, config.tlsKey);
    return { cert, key, certFile: config.tlsCert, created: false, ...(warning ? { warning } : {}) };
  }
  const dir = join(config.varDir, 'tls');
  const certFile = join(dir, CERT_FILE);
  const existing = usablePair(dir);
  if (existing) return { ...existing, certFile, created: false };
  const made = await generateDevCertificate();
  try {
    return { ...publish(config.varDir, dir, made), certFile };
  } catch (error) {
    // A full disk does not stop the start: the certificate serves from memory, and the next start makes another.
    return {
      ...made,
      certFile,
      created: true,
      unsaved: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
    };
  }
}

const CERT_FILE = 'localhost.crt';
const KEY_FILE = 'localhost.key';
/** Publishing gives up after this many rounds of other instances replacing the pair under it. */
const PUBLISH_ATTEMPTS = 5;

interface Pair {
  cert: string;
  key: string;
}

async function generateDevCertificate(): Promise<Pair> {
  // Loaded only to make one: its X.509 library is slow to load, at every start.
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
        altNames: [
          ...DEV_HOSTS.dns.map((value) => ({ type: 2 as const, value })),
          ...DEV_HOSTS.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** The pair in `dir` when both files are there, the certificate still valid and the key its own. */
function usablePair(dir: string): Pair | undefined {
  let pair: Pair;
  try {
    pair = { cert: readFileSync(join(dir, CERT_FILE), 'utf8'), key: readFileSync(join(dir, KEY_FILE), 'utf8') };
  } catch {
    return undefined;
  }
  return stillValid(pair.cert) && belongTogether(pair) ? pair : undefined;
}

function belongTogether({ cert, key }: Pair): boolean {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

/**
 * Puts `made` in place as one step, for instances that start together on one VAR_DIR: both
 * files are written in a directory of their own, renamed to `tls`. A rename never replaces
 * a directory that holds files, so one instance wins and the others read its pair. An
 * unusable pair in the way (expired, or not a pair) is moved aside first.
 */
function publish(varDir: string, dir: string, made: Pair): Pair & { created: boolean } {
  // VAR_DIR holds this key and the debug reports: its owner's alone (the store makes it so too).
  mkdirSync(varDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
    const fresh = mkdtempSync(join(varDir, '.tls-new-'));
    try {
      writeFileSync(join(fresh, KEY_FILE), made.key, { mode: 0o600 });
      chmodSync(join(fresh, KEY_FILE), 0o600);
      writeFileSync(join(fresh, CERT_FILE), made.cert);
      renameSync(fresh, dir);
      return { ...made, created: true };
    } catch (error) {
      rmSync(fresh, { recursive: true, force: true });
      if (!IN_PLACE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
    const winner = usablePair(dir);
    if (winner) return { ...winner, created: false };
    moveAside(varDir, dir);
  }
  throw new Error(`cannot put the development certificate in place in ${dir}: other processes keep replacing it`);
}

/** What rename(2) says when the target directory is there and holds files. */
const IN_PLACE = new Set(['ENOTEMPTY', 'EEXIST', 'EPERM']);

/** Takes an unusable pair out of the way; anything else that was beside it is left, aside. */
function moveAside(varDir: string, dir: string): void {
  const aside = join(varDir, `.tls-old-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    renameSync(dir, aside);
  } catch {
    return; // another instance moved it first
  }
  rmSync(join(aside, CERT_FILE), { force: true });
  rmSync(join(aside, KEY_FILE), { force: true });
  try {
    rmdirSync(aside);
  } catch {
    // it holds something of the operator's
  }
}

function readPem(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      variable,
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/**
 * Refuses what TLS could not use, naming the setting; a certificate out of its dates only
 * gets a warning (returned): a clock that is off must not stop the service.
 */
function checkOperatorMaterial(certPem: string, keyPem: string, certFile: string, keyFile: string): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (error) {
    throw new ConfigError('TLS_CERT', `${certFile} is not a PEM certificate (${opensslReason(error)})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE' || keyPem.includes('ENCRYPTED')) {
      throw new ConfigError(
        'TLS_KEY',
        `${keyFile} is encrypted: vigil needs the key without a passphrase (openssl pkey -in encrypted.key -out plain.key)`,
      );
    }
    throw new ConfigError('TLS_KEY', `${keyFile} is not a PEM private key (${opensslReason(error)})`);
  }
  if (key.type !== 'private' || !cert.checkPrivateKey(key))
    throw new ConfigError('TLS_KEY', `${keyFile} is not the key of TLS_CERT ${certFile}`);
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (error) {
    throw new ConfigError(
      'TLS_CERT',
      `${certFile} with TLS_KEY ${keyFile} cannot be used for TLS (${opensslReason(error)})`,
    );
  }
  const now = Date.now();
  const refused = 'clients that check certificates will refuse this service';
  if (new Date(cert.validTo).getTime() < now) return `TLS_CERT ${certFile} expired on ${cert.validTo}: ${refused}`;
  if (new Date(cert.validFrom).getTime() > now)
    return `TLS_CERT ${certFile} is not valid before ${cert.validFrom}: ${refused}`;
  return undefined;
}

/** "no start line" from "error:0480006C:PEM routines::no start line". */
function opensslReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error:[0-9A-F]+:[^:]*::/, '');
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
