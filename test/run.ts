/**
 * `npm test`: builds the sources once (`support/kernel-build.ts`) and runs the built test
 * files with Node's runner, three processes at a time, longest first, the short files
 * several to a process. Arguments name test files (`.ts`, as in the tree) or pass runner
 * options through, e.g. `npm test -- test/profiler/pages.test.ts`. Without file arguments
 * it runs every test file but those of `test/deploy/`, which need programs npm does not
 * install (nginx): `npm run test:deploy` names them.
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
 * Processes run at once: three, on two cores, so that the files that mostly wait (timeouts,
 * slow clients, a server coming back) leave no core idle. Three once failed the 20,000-token
 * PostgreSQL test on a saturated machine: its requests, through `inject`, held the event
 * loop for seconds, and a token lease's answer waited unread behind its own timeouts;
 * `askInTurn` now yields between requests, as a socket's request does (CONTRIBUTING.md, Tests).
 */
const CONCURRENCY = 3;
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
const chosen = (named.length > 0 ? named : [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'src'))]).map(
  (file) => relative(ROOT, join(ROOT, file)),
);
for (const file of chosen)
  if (builtFile(file) === undefined) throw new Error(`${file}: not a .ts file under src/, examples/ or test/`);

/**
 * What each runner process loads: a test file that takes SHARED_BELOW_SECONDS or more has a
 * process of its own; shorter ones share a process, up to about SHARED_PROCESS_SECONDS of
 * them, run one after the other: a process costs about 0.25 s of CPU to start and load the
 * test helpers, more than many such files take. The unit tests beside the modules
 * (`src/**\/*.test.ts`) share one, since each is pure and takes milliseconds.
 */
const SHARED_BELOW_SECONDS = 3;
const SHARED_PROCESS_SECONDS = 10;
/**
 * Files that have a process of their own whatever they take: their tracing set-up
 * (`support/tracing.ts`, `support/tracing-with-http.ts`) instruments pg only if no file before
 * them in the process loaded it.
 */
const OWN_PROCESS = new Set(['test/profiler/app-activity.test.ts', 'test/profiler/busy-pool.test.ts']);
type Load = { name: string; files: string[]; seconds: number };
const secondsOf = (file: string) => SECONDS[file] ?? UNLISTED_SECONDS;
const units = chosen.filter((file) => file.startsWith('src/'));
const shortFiles = chosen.filter(
  (file) => !file.startsWith('src/') && !OWN_PROCESS.has(file) && secondsOf(file) < SHARED_BELOW_SECONDS,
);
const shared: Load[] = Array.from(
  { length: Math.ceil(shortFiles.reduce((sum, file) => sum + secondsOf(file), 0) / SHARED_PROCESS_SECONDS) },
  (_, i) => ({ name: `shared-${i + 1}`, files: [], seconds: 0 }),
);
// The longest first, each to the process with the least time so far.
for (const file of [...shortFiles].sort((a, b) => secondsOf(b) - secondsOf(a))) {
  const least = shared.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  least.files.push(file);
  least.seconds += secondsOf(file);
}
const loads: Load[] = [
  ...chosen
    .filter((file) => !file.startsWith('src/') && !shortFiles.includes(file))
    .map((file) => ({ name: file, files: [file], seconds: secondsOf(file) })),
  ...shared.filter((load) => load.files.length > 0),
  ...(units.length === 0
    ? []
    : [{ name: 'src/unit-tests', files: units, seconds: SECONDS['src/unit-tests'] ?? UNLISTED_SECONDS }]),
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
        writeFileSync(file, loadModule(load, order));
        return file;
      });
/**
 * A load's module: one file is imported as it is; several each run inside a suite named by
 * the file, so that a file's top-level hooks (before, after, beforeEach) apply to its own
 * tests only, as when it has a process of its own.
 */
function loadModule(load: Load, directory: string): string {
  const built = (file: string) => JSON.stringify(`./${relative(directory, builtFile(file)!)}`);
  if (load.files.length === 1) return `import ${built(load.files[0]!)};\n`;
  return (
    [
      "import { describe } from 'node:test';",
      ...load.files.map(
        (file) => `describe(${JSON.stringify(file)}, async () => {\n  await import(${built(file)});\n});`,
      ),
    ].join('\n') + '\n'
  );
}

/**
 * A test that hangs fails after TEST_TIMEOUT_MS, the longest file taking 30 s. A file whose
 * `before` failed halfway (one of three services started, Chromium launched) can keep its
 * process alive once its tests are done; the run is ended after RUN_BOUND_MS, and says so.
 * Not `--test-force-exit`: it ends a file's process before its last results reach the
 * runner (nodejs/node#64833), and on Node 22 a run lost 7 tests that way, reported as passed.
 */
const TEST_TIMEOUT_MS = 300_000;
const RUN_BOUND_MS = 30 * 60_000;
const runner = spawn(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    '--test-reporter=spec',
    ...options,
    ...files,
  ],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
const bound = setTimeout(() => {
  console.error(
    `npm test: the run did not end within ${RUN_BOUND_MS / 60_000} minutes; a test file's process is still running (handles left open by a failed start?). Ending it.`,
  );
  runner.kill('SIGKILL');
}, RUN_BOUND_MS);
runner.on('exit', (code, signal) => {
  clearTimeout(bound);
  if (order !== undefined) rmSync(order, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
