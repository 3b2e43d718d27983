/**
 * Chromium for the browser tests, driven by playwright-core: Debian's `chromium` when it is
 * installed (or `CHROMIUM_PATH`), otherwise the build shipped inside `@sparticuz/chromium`,
 * so that `npm test` needs nothing beyond npm.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import packagedChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './root.js';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Where the browser tests leave their screenshots. */
const ARTIFACTS = join(ROOT, 'test-artifacts');

/** The path of a screenshot named `name` under `test-artifacts/`, the folder made if missing. */
export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** What this machine requires of any Chromium: no sandbox as root, no calls home. */
const MACHINE_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

export interface ChromiumChoice {
  executablePath: string;
  args: string[];
  /** Where it came from, for the test log. */
  source: 'CHROMIUM_PATH' | 'debian' | '@sparticuz/chromium';
}

export async function chooseChromium(): Promise<ChromiumChoice> {
  if (process.env.CHROMIUM_PATH)
    return { executablePath: process.env.CHROMIUM_PATH, args: MACHINE_FLAGS, source: 'CHROMIUM_PATH' };
  if (existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, args: MACHINE_FLAGS, source: 'debian' };
  // Not the package's own `args`: they are tuned for AWS Lambda (one process, web security
  // off), which hangs cross-origin navigation and would let the CORS tests pass falsely.
  const executablePath = await withExtractionLock(unpackedChromium);
  return { executablePath, args: MACHINE_FLAGS, source: '@sparticuz/chromium' };
}

/**
 * What the package unpacks into the temporary directory. It takes any of them that exists
 * as whole, and a process ended while it unpacked (a test file's process ends with its tests)
 * left a cut binary that crashed every launch after it.
 */
const UNPACKED = ['chromium', 'fonts', 'libGLESv2.so', 'libEGL.so', 'libvk_swiftshader.so', 'libvulkan.so.1'];
/**
 * Written once the package has unpacked everything, with its version: without it, or after
 * an upgrade of the package, what is there is unpacked again.
 */
const UNPACKED_WHOLE = join(tmpdir(), 'vigil-test-chromium.unpacked');
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules', '@sparticuz', 'chromium', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

async function unpackedChromium(): Promise<string> {
  const marked = existsSync(UNPACKED_WHOLE) ? readFileSync(UNPACKED_WHOLE, 'utf8').trim() : '';
  if (marked !== PACKAGE_VERSION)
    for (const name of UNPACKED) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  const executablePath = await packagedChromium.executablePath();
  writeFileSync(UNPACKED_WHOLE, `${PACKAGE_VERSION}\n`);
  return executablePath;
}

export async function launchChromium(): Promise<Browser> {
  const { executablePath, args } = await chooseChromium();
  return chromium.launch({ executablePath, args });
}

/**
 * The package unpacks its binary into the temporary directory on first use; two test files
 * starting at once must not unpack it over each other.
 */
async function withExtractionLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), 'vigil-test-chromium.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmdirSync(lock); // left by a killed run
      await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    rmdirSync(lock);
  }
}
