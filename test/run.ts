/**
 * `npm test`: builds the sources once (`support/kernel-build.ts`) and runs the built test
 * files with Node's runner, two at a time, longest first. Arguments name test files
 * (`.ts`, as in the tree) or pass runner options through, e.g. `npm test --
 * test/profiler/pages.test.ts`. Without file arguments it runs every test file but those of
 * `test/deploy/`, which need programs npm does not install (nginx): `npm run test:deploy`
 * names them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SECONDS } from './support/file-durations.js';
import { builtFile, kernelBuild } from './support/kernel-build.js';
import { ROOT } from './support/root.js';

/** Suites run only when named: `npm run test:deploy`. */
const NAMED_ONLY = [join(ROOT, 'test', 'deploy')];
/**
 * Files run at once: two, one per core. Three took 126-131 s against 144 s for two, and
 * four 3-7 s less than three, but a clean clone's run at three failed the 20,000-token
 * PostgreSQL test once ("every request has a token": most likely a token lease missed the
 * store's timeouts on a saturated machine), as a run at three had in an earlier session.
 * Two have failed none (README, Tests).
 */
const CONCURRENCY = 2;
/** The time assumed for a file `support/file-durations.ts` does not list. */
const UNLISTED_SECONDS = 1;

function testFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!NAMED_ONLY.includes(path)) files.push(...testFiles(path));
    } else if (entry.name.endsWith('.test.ts')) files.push(relative(ROOT, path));
  }
  return files.sort();
}

const args = process.argv.slice(2);
// `.ts` arguments are test files; the others are the runner's options and their values.
const named = args.filter((argument) => argument.endsWith('.ts'));
const options = args.filter((argument) => !argument.endsWith('.ts'));
const chosen = (named.length > 0 ? named : [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'src'))]).map((file) => relative(ROOT, join(ROOT, file)));
for (const file of chosen) if (builtFile(file) === undefined) throw new Error(`${file}: not a .ts file under src/, examples/ or test/`);

/**
 * What each runner process loads: a test file, or the unit tests beside the modules
 * (`src/**\/*.test.ts`) together, since each of those is pure and takes milliseconds: a
 * process of its own would cost more than its tests (about 0.3 s of CPU to start).
 */
const units = chosen.filter((file) => file.startsWith('src/'));
const loads: Array<{ name: string; files: string[]; seconds: number }> = [
  ...chosen.filter((file) => units.length < 2 || !units.includes(file)).map((file) => ({ name: file, files: [file], seconds: SECONDS[file] ?? UNLISTED_SECONDS })),
  ...(units.length < 2 ? [] : [{ name: 'src/unit-tests', files: units, seconds: SECONDS['src/unit-tests'] ?? UNLISTED_SECONDS }]),
].sort((a, b) => b.seconds - a.seconds);

/**
 * Node's runner sorts the files it is given by path and starts them in that order: each load
 * is a module in a directory of this run, named by its place, that imports the built files.
 */
let order: string | undefined;
const files =
  loads.length === 1 && loads[0]!.files.length === 1
    ? [builtFile(loads[0]!.files[0]!)!]
    : loads.map((load, place) => {
        order ??= mkdtempSync(join(kernelBuild(), 'run-'));
        const file = join(order, `${String(place).padStart(3, '0')}-${load.name.replaceAll('/', '~')}.js`);
        writeFileSync(file, load.files.map((test) => `import ${JSON.stringify(relative(order!, builtFile(test)!))};\n`).join(''));
        return file;
      });
const runner = spawn(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', ...options, ...files], {
  cwd: ROOT,
  stdio: 'inherit',
});
runner.on('exit', (code, signal) => {
  if (order !== undefined) rmSync(order, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
