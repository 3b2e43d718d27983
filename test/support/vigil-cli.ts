/**
 * `bin/vigil.js` for the tests, from the build: the same `run` of `src/cli/main.ts`, started
 * without `tsx` (a third of the CPU per command). `support/command-line.ts` runs it.
 */
import { run } from '../../src/cli/main.js';

process.exitCode = await run(process.argv.slice(2));
