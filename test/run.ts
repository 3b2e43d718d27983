/**
 * `npm test`: builds the sources once (`support/kernel-build.ts`) and runs the built test
 * files with Node's runner, three processes at a time, longest first, the short files
 * several to a process, each process leading a process group of its own and bounded by
 * TEST_FILE_TIMEOUT_S. Arguments name test files (`.ts`, as in the tree) or pass runner
 * options through, e.g. `npm test -- test/profiler/pages.test.ts`. Without file arguments
 * it runs every test file but those of `test/deploy/` and `test/services/`, which need programs
 * npm does not install (nginx, redis-server): `npm run test:deploy` and `test:services` name them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SECONDS } from './support/file-durations.js';
import { BUILD_OF_THE_RUN, builtFile, kernelBuild } from './support/kernel-build.js';
import { ROOT } from './support/root.js';

/** Suites run only when named: `npm run test:deploy`, `npm run test:services`. */
const NAMED_ONLY = [join(ROOT, 'test', 'deploy'), join(ROOT, 'test', 'services')];
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

/**
 * How long a runner process may take, in seconds: TEST_FILE_TIMEOUT_S, or 10 minutes. Past
 * it, the process is named and fails the run, and its process group is ended.
 */
const fileBoundSeconds = fileBound(process.env.TEST_FILE_TIMEOUT_S);
function fileBound(setting: string | undefined): number {
  if (setting === undefined) return 600;
  // A timer waits at most 2^31 - 1 ms; a longer one fires at once.
  const longest = Math.floor((2 ** 31 - 1) / 1000);
  if (/^[1-9][0-9]*$/.test(setting) && Number(setting) <= longest) return Number(setting);
  console.error(
    `npm test: TEST_FILE_TIMEOUT_S is ${JSON.stringify(setting)}; it takes a whole number of seconds from 1 to ${longest}.`,
  );
  process.exit(2);
}

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
const OWN_PROCESS = new Set([
  'test/profiler/app-activity.test.ts',
  'test/profiler/busy-pool.test.ts',
  'test/profiler/panels-deep.test.ts',
]);
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
 * What each runner process loads: a file of its own is run as it is; several are imported by
 * a module of this run, each inside a suite named by the file, so that a file's top-level
 * hooks (before, after, beforeEach) apply to its own tests only, as when it has a process of
 * its own. That module also writes the file whose tests are running to `<module>.running`,
 * for the line that names a process past its bound.
 */
type Run = { load: Load; file: string; running?: string };
let shares: string | undefined;
const runs: Run[] = loads.map((load) => {
  if (load.files.length === 1) return { load, file: builtFile(load.files[0]!)! };
  shares ??= mkdtempSync(join(kernelBuild(), 'run-'));
  // One file in this run's folder: a load's name may have slashes (`src/unit-tests`).
  const file = join(shares, `${load.name.replaceAll('/', '-')}.js`);
  writeFileSync(file, sharedModule(load, shares, `${file}.running`));
  return { load, file, running: `${file}.running` };
});
function sharedModule(load: Load, directory: string, running: string): string {
  const built = (file: string) => JSON.stringify(`./${relative(directory, builtFile(file)!)}`);
  return (
    [
      "import { writeFileSync } from 'node:fs';",
      "import { after, before, describe } from 'node:test';",
      `const running = (file) => writeFileSync(${JSON.stringify(running)}, file);`,
      ...load.files.map(
        (file) =>
          `describe(${JSON.stringify(file)}, async () => {\n  before(() => running(${JSON.stringify(file)}));\n` +
          `  await import(${built(file)});\n  after(() => running(''));\n});`,
      ),
    ].join('\n') + '\n'
  );
}

/**
 * A test that hangs fails after TEST_TIMEOUT_MS, the longest file taking 30 s. A file whose
 * `before` failed halfway (one of three services started, Chromium launched) can keep its
 * process alive once its tests are done: a runner process still going after
 * TEST_FILE_TIMEOUT_S is named and fails the run, and the run is ended after RUN_BOUND_MS.
 * Not `--test-force-exit`: it ends a file's process before its last results reach the
 * runner (nodejs/node#64833), and on Node 22 a run lost 7 tests that way, reported as passed.
 */
const TEST_TIMEOUT_MS = 300_000;
const RUN_BOUND_MS = 30 * 60_000;
/**
 * Each runner process leads a process group of its own, which holds everything it starts
 * (services, workers, PostgreSQL) but what starts a group of its own (playwright's Chromium).
 * A group is ended with SIGTERM, so that a test process can close what it started (playwright
 * closes its Chromium on SIGTERM and on exit), then SIGKILL after END_GRACE_MS.
 */
const END_GRACE_MS = 5_000;

type Outcome = { load: Load; failure?: string; output: string };
const active = new Map<Run, (why: string) => void>();
/** The run's exit code once it is interrupted or past its bound: no further process starts. */
let stoppedWith: number | undefined;

function signalGroup(leader: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader, signal);
  } catch {
    // ESRCH: the whole group has ended.
  }
}

function runLoad(run: Run): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--enable-source-maps',
        '--test',
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        '--test-reporter=spec',
        ...options,
        run.file,
      ],
      {
        cwd: ROOT,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, [BUILD_OF_THE_RUN]: kernelBuild() },
      },
    );
    const leader = child.pid!;
    // Printed when the process ends, so that the reports of processes running at once do not interleave.
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    let failure: string | undefined;
    const end = (why: string) => {
      if (failure !== undefined) return;
      failure = why;
      signalGroup(leader, 'SIGTERM');
      setTimeout(() => signalGroup(leader, 'SIGKILL'), END_GRACE_MS);
    };
    active.set(run, end);
    const bound = setTimeout(() => {
      console.error(`npm test: ${pastBound(run)} Ending its process group.`);
      end(`did not end within ${fileBoundSeconds} s (TEST_FILE_TIMEOUT_S)`);
    }, fileBoundSeconds * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(bound);
      active.delete(run);
      if (failure === undefined && code !== 0) failure = code === null ? `ended by ${signal}` : `exit code ${code}`;
      resolve({
        load: run.load,
        output: Buffer.concat(output).toString(),
        ...(failure === undefined ? {} : { failure }),
      });
    });
  });
}

/** Names the files of a process past its bound, and which of them was running when it can tell. */
function pastBound(run: Run): string {
  const files = run.load.files;
  const limit = `did not end within ${fileBoundSeconds} s (TEST_FILE_TIMEOUT_S).`;
  if (files.length === 1) return `${files[0]} ${limit}`;
  const running = run.running !== undefined && existsSync(run.running) ? readFileSync(run.running, 'utf8') : '';
  return `the process of ${files.join(', ')} ${limit} ${running === '' ? 'None of them was running its tests.' : `It was running ${running}.`}`;
}

function stop(why: string, exitCode: number): void {
  if (stoppedWith !== undefined) return;
  stoppedWith = exitCode;
  const names = [...active.keys()].map((run) => run.load.files.join(', '));
  console.error(`npm test: ${why}.${names.length > 0 ? ` Ending the processes of ${names.join('; ')}.` : ''}`);
  for (const end of active.values()) end(why);
}
process.on('SIGINT', () => stop('interrupted (SIGINT)', 130));
process.on('SIGTERM', () => stop('interrupted (SIGTERM)', 143));
const runBound = setTimeout(() => stop(`the run did not end within ${RUN_BOUND_MS / 60_000} minutes`, 1), RUN_BOUND_MS);

const queue = [...runs];
const outcomes: Outcome[] = [];
async function lane(): Promise<void> {
  for (let run = queue.shift(); run !== undefined && stoppedWith === undefined; run = queue.shift()) {
    const outcome = await runLoad(run);
    if (runs.length > 1) console.log(`\n# ${outcome.load.name}`);
    process.stdout.write(outcome.output);
    outcomes.push(outcome);
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, lane));
clearTimeout(runBound);
if (shares !== undefined) rmSync(shares, { recursive: true, force: true });

// Every process printed its own summary: the run's adds them up and names the processes that failed.
const totals = new Map<string, number>();
for (const { output } of outcomes)
  for (const [, name, count] of output.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    totals.set(name!, (totals.get(name!) ?? 0) + Number(count));
const failed = outcomes.filter((outcome) => outcome.failure !== undefined);
const summary = [...totals].map(([name, count]) => `${name} ${count}`).join(', ');
console.log(`\nnpm test: ${outcomes.length} of ${runs.length} runner processes ran${summary && `: ${summary}`}.`);
for (const { load, failure } of failed) console.log(`✖ ${load.files.join(', ')}: ${failure}`);
process.exitCode = stoppedWith ?? (failed.length > 0 ? 1 : 0);
