/**
 * The house's floors, checked on the sources: no import cycle between modules, and no
 * module imports a floor above its own (type-only imports count: they are dependencies too).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../support/root.js';

const SRC = join(ROOT, 'src');

/**
 * The floors from the ground up. A unit is a folder of src/ or a file at its top; a unit
 * may import its own modules and the units of the floors below, never a unit of its own
 * floor or of one above.
 */
const FLOORS: readonly (readonly string[])[] = [
  // the ground: small helpers every floor may use (the html tag, byte sizes, backoff, throttled logs)
  ['utils'],
  // leaves: settings, debug helpers, what a request is (its URL, its date, its state), optional packages
  ['config', 'debug', 'http', 'optional-package.ts'],
  // error classes, codes, negotiation and the one error handler
  ['errors'],
  // the per-request guards (the request head, Host, malformed requests) and the cross-origin
  // policy: hooks that raise the pipeline's errors
  ['guards', 'cors'],
  // the route table, the 404/405/301 decision
  ['routing'],
  // body, upload, execution-time and memory limits for routed requests
  ['limits'],
  // reports, collectors, storage, pages
  ['profiler'],
  // listening, workers, shutdown
  ['server'],
  // the composition: the plugin, the Fastify options, the standalone kernel
  ['composition'],
  // what a routes module imports (`vigil/routes`), the kernel left out
  ['routes-api.ts'],
  // entries: nothing imports them
  ['index.ts', 'main.ts', 'cli'],
];

/** Top-level modules that compose the kernel count as one unit. */
const COMPOSITION = new Set(['app.ts', 'plugin.ts', 'kernel-hooks.ts', 'fastify-options.ts']);

function unitOf(file: string): string {
  const path = relative(SRC, file);
  const first = path.split('/')[0]!;
  return COMPOSITION.has(first) ? 'composition' : first;
}

function floorOf(unit: string): number {
  const floor = FLOORS.findIndex((units) => units.includes(unit));
  if (floor === -1) throw new Error(`src/${unit} belongs to no floor: add it to FLOORS`);
  return floor;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The modules of src/ a file imports (static, re-exports, dynamic with a literal; comments ignored). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
    .filter((path) => path.startsWith(`${SRC}/`));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const show = (file: string) => relative(ROOT, file);

describe('no module imports a floor above its own', () => {
  it('places every unit of src/ on a floor', () => {
    for (const file of files) floorOf(unitOf(file));
  });

  it('keeps every import on its own unit or a floor below', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const unit = unitOf(file);
      for (const imported of imports) {
        const target = unitOf(imported);
        if (target === unit) continue;
        if (floorOf(target) >= floorOf(unit))
          upward.push(`${show(file)} imports ${show(imported)} (${unit} -> ${target})`);
      }
    }
    assert.deepEqual(upward, []);
  });
});

describe('there is no import cycle', () => {
  it('finds no cycle between modules', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].map(show).join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(cycles, []);
  });

  it('finds no cycle between units', () => {
    const edges = new Map<string, Set<string>>();
    for (const [file, imports] of graph) {
      for (const imported of imports) {
        const [from, to] = [unitOf(file), unitOf(imported)];
        if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const cycles: string[] = [];
    for (const [from, targets] of edges) {
      for (const to of targets) if (edges.get(to)?.has(from) && from < to) cycles.push(`${from} <-> ${to}`);
    }
    assert.deepEqual(cycles, []);
  });
});
