/**
 * `npm test`: builds the sources once (`support/kernel-build.ts`) and runs the built test
 * files with Node's runner, several at a time, longest first. Arguments name test files
 * (`.ts`, as in the tree) or pass runner options through, e.g. `npm test --
 * test/profiler/pages.test.ts`. Without file arguments it runs every test file but those of
 * `test/deploy/`, which need programs npm does not install (nginx): `npm run test:deploy`
 * names them.
 */
import { spawn } from 'node:child_process';
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SECONDS } from './support/file-durations.js';
import { builtFile, kernelBuild } from './support/kernel-build.js';
import { ROOT } from './support/root.js';

/** Suites run only when named: `npm run test:deploy`. */
const NAMED_ONLY = [join(ROOT, 'test', 'deploy')];
/**
 * Files run at once. Most files spend much of their time waiting (on timers, on the services
 * and servers they start), so three keep the 2 cores busier than two; measured in README.
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

/**
 * The unit tests beside the modules (`src/**\/*.test.ts`) in one process: each is pure and
 * takes milliseconds, so a process of its own would cost more than its tests (about 0.3 s
 * of CPU to start). A module made in the build, importing them in order.
 */
function unitsInOneProcess(units: string[]): string {
  const build = kernelBuild();
  const file = join(build, 'unit-tests.js');
  const scratch = `${file}.${process.pid}.tmp`;
  writeFileSync(scratch, units.map((unit) => `import ${JSON.stringify(`./${relative(build, builtFile(unit)!)}`)};\n`).join(''));
  renameSync(scratch, file);
  return file;
}

const args = process.argv.slice(2);
// `.ts` arguments are test files; the others are the runner's options and their values.
const named = args.filter((argument) => argument.endsWith('.ts'));
const options = args.filter((argument) => !argument.endsWith('.ts'));
const chosen = named.length > 0 ? named : [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'src'))];
for (const file of chosen) if (builtFile(file) === undefined) throw new Error(`${file}: not a .ts file under src/, examples/ or test/`);
const seconds = (file: string) => SECONDS[relative(ROOT, join(ROOT, file))] ?? UNLISTED_SECONDS;
const units = chosen.filter((file) => relative(ROOT, join(ROOT, file)).startsWith('src/'));
const groups = units.length > 1 ? [{ file: unitsInOneProcess(units), seconds: UNLISTED_SECONDS }] : [];
const single = (units.length > 1 ? chosen.filter((file) => !units.includes(file)) : chosen).map((file) => ({ file: builtFile(file)!, seconds: seconds(file) }));
// Node's runner starts the files in the order given, as places free up.
const files = [...single, ...groups].sort((a, b) => b.seconds - a.seconds).map(({ file }) => file);
const runner = spawn(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', ...options, ...files], {
  cwd: ROOT,
  stdio: 'inherit',
});
runner.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
