/**
 * The kernel, its examples and its tests transpiled to JavaScript once per source state,
 * so that `npm test` runs without `tsx`: each test file and each service it starts boots
 * in about half the CPU.
 *
 * Linked source maps make every frame point at the `.ts` line, as under `tsx`. A build
 * lives in `.test-build/<hash of the sources' names, sizes and times>/` and is never
 * replaced in place: a service still running from an older build keeps its files.
 */
import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ROOT } from './root.js';

const BUILD_DIR = join(ROOT, '.test-build');
const SOURCE_DIRS = ['src', 'examples', 'scripts', 'test'];
/** Builds older than this are removed when a new one is made: no test run lasts that long. */
const STALE_BUILD_MS = 60 * 60 * 1000;

/**
 * The build `npm test` ran its files from, handed to them: a file's process keeps to it, so a
 * source saved while the run goes on cannot mix a newer build's modules (its routes modules)
 * with the older one the test loaded (two copies of a class, of the `html` tag's mark).
 */
export const BUILD_OF_THE_RUN = 'VIGIL_TEST_BUILD';

let built: string | undefined = process.env[BUILD_OF_THE_RUN];

/** The directory of a build of the current sources, made if missing. */
export function kernelBuild(): string {
  if (built !== undefined && existsSync(join(built, 'done'))) return built;
  const sources = SOURCE_DIRS.flatMap((directory) => typeScriptFiles(join(ROOT, directory)));
  const hash = createHash('sha256');
  for (const file of sources) {
    const stats = statSync(file);
    hash.update(`${relative(ROOT, file)}\0${stats.size}\0${stats.mtimeMs}\n`);
  }
  const directory = join(BUILD_DIR, hash.digest('hex').slice(0, 16));
  if (!existsSync(join(directory, 'done'))) {
    // Each process builds beside the others and renames into place: the first rename wins.
    const scratch = `${directory}.${process.pid}.tmp`;
    rmSync(scratch, { recursive: true, force: true });
    buildSync({
      entryPoints: sources,
      outdir: scratch,
      outbase: ROOT,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'error',
    });
    writeFileSync(join(scratch, 'done'), '');
    try {
      renameSync(scratch, directory);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
    }
    removeStaleBuilds(directory);
  }
  built = directory;
  return directory;
}

/** True in a process that runs from a build (`npm test`), false under `tsx`. */
export const RUNNING_BUILT = import.meta.url.includes('/.test-build/');

/** The file this process can import: the built counterpart of `file` when running built. */
export function importable(file: string): string {
  return RUNNING_BUILT ? (builtFile(file) ?? file) : file;
}

/** The built counterpart of a `.ts` file of the sources, or undefined when it has none. */
export function builtFile(file: string): string | undefined {
  const path = relative(ROOT, resolve(ROOT, file));
  if (!path.endsWith('.ts') || !SOURCE_DIRS.some((directory) => path.startsWith(`${directory}/`))) return undefined;
  return join(kernelBuild(), path.replace(/\.ts$/, '.js'));
}

function typeScriptFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...typeScriptFiles(path));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files.sort();
}

function removeStaleBuilds(keep: string): void {
  mkdirSync(BUILD_DIR, { recursive: true });
  for (const name of readdirSync(BUILD_DIR)) {
    const path = join(BUILD_DIR, name);
    if (path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // another process removed it first
    }
  }
}
