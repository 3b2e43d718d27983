#!/usr/bin/env node
// The `vigil` command: runs the TypeScript command line through tsx, as `npm start` runs the service.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
