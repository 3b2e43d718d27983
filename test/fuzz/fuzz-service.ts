/**
 * The service the fuzzer aims at: `src/main.ts` with the demo and fuzz routes, in debug or
 * production mode, behind a trusted proxy (so forwarded headers count), with trusted hosts
 * set, a canary in its environment, and bait files a forged stack frame may name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedCertificate } from '../support/certificate.js';
import { ROOT, startService, type Service } from '../support/service.js';
import type { Mode } from './cases.js';
import type { Bait } from './issue-cases.js';

export interface FuzzService {
  service: Service;
  bait: Bait;
  /** In the service's environment only: an answer that holds it read `/proc/self/environ`. */
  canary: string;
  /** Where a stack frame may point: the project, and its dependencies where they really are (node_modules may be a link). */
  roots: string[];
  /** Stops the service, killing it (and its workers) when a frozen event loop ignores SIGTERM. */
  stop(): Promise<void>;
}

/** The settings every fuzz run uses, besides the mode. */
export const FUZZ_SETTINGS: Readonly<Record<string, string>> = {
  ROUTES: 'test/fixtures/fuzz-routes.ts',
  TRUSTED_PROXIES: '127.0.0.1',
  TRUSTED_HOSTS: '^localhost$,^127\\.0\\.0\\.1$',
  ISOLATED_WORKERS: '2',
  LOG_LEVEL: 'error',
};

const STOP_GRACE_MS = 10_000;

export async function startFuzzService(mode: Mode): Promise<FuzzService> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-fuzz-bait-'));
  const large = join(dir, 'large.bin');
  writeFileSync(large, '');
  truncateSync(large, 8 * 1024 * 1024); // sparse: costs no disk
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const bait: Bait = { fifo, large, key: (await sharedCertificate()).TLS_KEY };
  const canary = `vgl-env-${randomBytes(8).toString('hex')}`;
  const service = await startService({
    ...FUZZ_SETTINGS,
    APP_ENV: mode === 'debug' ? 'dev' : 'prod',
    VIGIL_FUZZ_CANARY: canary,
  });
  return {
    service,
    bait,
    canary,
    roots: [ROOT, realpathSync(join(ROOT, 'node_modules'))],
    async stop() {
      const stopped = service.stop();
      // A frozen event loop never runs the SIGTERM handler; its workers exit when their channel closes.
      const timer = setTimeout(() => killQuietly(service.pid), STOP_GRACE_MS);
      await stopped;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      rmSync(service.varDir, { recursive: true, force: true });
    },
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
