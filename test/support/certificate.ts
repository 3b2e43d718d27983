/**
 * One localhost certificate for the whole test run, made by the service's own code once and
 * kept in the temporary directory while valid, so that each started service does not
 * generate an RSA key of its own.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTlsMaterial, stillValid } from '../../src/server/certificate.js';

export interface CertificateFiles {
  TLS_CERT: string;
  TLS_KEY: string;
}

const SHARED_DIR = join(tmpdir(), 'vigil-test-certificate');

export async function sharedCertificate(): Promise<CertificateFiles> {
  const files = {
    TLS_CERT: join(SHARED_DIR, 'tls', 'localhost.crt'),
    TLS_KEY: join(SHARED_DIR, 'tls', 'localhost.key'),
  };
  if (existsSync(files.TLS_CERT) && stillValid(readFileSync(files.TLS_CERT, 'utf8'))) return files;
  try {
    renameSync(SHARED_DIR, `${SHARED_DIR}-expired-${process.pid}`);
  } catch {
    // none yet, or another test file moved it first
  }
  // Made aside and renamed into place, so that test files starting together never read half of one.
  const fresh = mkdtempSync(join(tmpdir(), 'vigil-test-certificate-'));
  await loadTlsMaterial({ varDir: fresh, tlsCert: undefined, tlsKey: undefined });
  try {
    renameSync(fresh, SHARED_DIR);
  } catch {
    rmSync(fresh, { recursive: true, force: true }); // another test file put one in place first
  }
  return files;
}
