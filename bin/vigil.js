#!/usr/bin/env node
// The `vigil` command line. Installed from the package it runs the compiled JavaScript;
// in a checkout of the sources it runs the TypeScript through tsx, as `npm start` does, so
// that it is never an older build.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let cli;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(sources.href);
} else {
  cli = await import('../dist/src/cli/main.js');
}
process.exitCode = await cli.run(process.argv.slice(2));
