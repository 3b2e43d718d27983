/**
 * `npm test`: builds the sources once (`support/kernel-build.ts`) and runs the built test
 * files with Node's runner, two at a time. Arguments name test files (`.ts`, as in the
 * tree) or pass runner options through, e.g. `npm test -- test/profiler/pages.test.ts`.
 * Without file arguments it runs every test file but those of `test/deploy/`, which need
 * programs npm does not install (nginx): `npm run test:deploy` names them.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { builtFile } from './support/kernel-build.js';
import { ROOT } from './support/root.js';

/** Suites run only when named: `npm run test:deploy`. */
const NAMED_ONLY = [join(ROOT, 'test', 'deploy')];

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
const files = (named.length > 0 ? named : [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'src'))]).map((file) => {
  const built = builtFile(file);
  if (built === undefined) throw new Error(`${file}: not a .ts file under src/, examples/ or test/`);
  return built;
});
const runner = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-reporter=spec', ...options, ...files], {
  cwd: ROOT,
  stdio: 'inherit',
});
runner.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
