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

/**
 * The profiler's own floors from the ground up, held the same way inside src/profiler/: a
 * unit is one of its folders, and the files at its top, which compose the rest, count as
 * one unit. Seen from the other floors, the profiler stays one unit.
 */
const PROFILER_FLOORS: readonly (readonly string[])[] = [
  // what is secret in a request, and its redaction
  ['redaction'],
  // the report and the request's profile, the panel types, how a report is encoded and bounded
  ['model'],
  // the overview's counts of requests, minute by minute, and the request each report stands for
  ['overview'],
  // the report tokens: blocks of a shared counter, and the permutation that hides it
  ['tokens'],
  // the store's contract, its search, SQLite and PostgreSQL
  ['storage'],
  // the queue that writes reports; what the application does during a request (spans, statements, calls, logs)
  ['writer', 'activity'],
  // the parts every view is made of: the page's frame and style, tables, badges, call sites, the waterfall
  ['views'],
  // what each collector keeps of a request, and its panel
  ['collectors'],
  // the report and list pages, a panel for any collector, the toolbar
  ['pages'],
  // who may read reports, and the hook that refuses the others
  ['access'],
  // the profiler composed: its hooks and its routes
  ['composition'],
];

/** Top-level modules that compose the kernel count as one unit. */
const COMPOSITION = new Set(['app.ts', 'plugin.ts', 'kernel-hooks.ts', 'fastify-options.ts']);

function unitOf(file: string): string {
  const path = relative(SRC, file);
  const first = path.split('/')[0]!;
  return COMPOSITION.has(first) ? 'composition' : first;
}

const PROFILER = join(SRC, 'profiler');

function profilerUnitOf(file: string): string {
  const parts = relative(PROFILER, file).split('/');
  return parts.length > 1 ? parts[0]! : 'composition';
}

/** A house of floors: src/ with its top-level units, and src/profiler/ with its own. */
interface House {
  name: string;
  floors: readonly (readonly string[])[];
  unitOf(file: string): string;
  holds(file: string): boolean;
}

const HOUSES: readonly House[] = [
  { name: 'src', floors: FLOORS, unitOf, holds: () => true },
  {
    name: 'src/profiler',
    floors: PROFILER_FLOORS,
    unitOf: profilerUnitOf,
    holds: (file) => file.startsWith(`${PROFILER}/`),
  },
];

function floorOf(house: House, unit: string): number {
  const floor = house.floors.findIndex((units) => units.includes(unit));
  if (floor === -1) throw new Error(`${house.name}/${unit} belongs to no floor: add it to its floors`);
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

/** The imports between units of one house, each as [importing file, imported file]. */
function crossings(house: House): [string, string][] {
  return [...graph].flatMap(([file, imports]) =>
    house.holds(file)
      ? imports
          .filter((imported) => house.holds(imported) && house.unitOf(imported) !== house.unitOf(file))
          .map((imported): [string, string] => [file, imported])
      : [],
  );
}

for (const house of HOUSES) {
  describe(`no module imports a floor above its own in ${house.name}/`, () => {
    it(`places every unit of ${house.name}/ on a floor`, () => {
      for (const file of files) if (house.holds(file)) floorOf(house, house.unitOf(file));
    });

    it('keeps every import on its own unit or a floor below', () => {
      const upward: string[] = [];
      for (const [file, imported] of crossings(house)) {
        const [unit, target] = [house.unitOf(file), house.unitOf(imported)];
        if (floorOf(house, target) >= floorOf(house, unit))
          upward.push(`${show(file)} imports ${show(imported)} (${unit} -> ${target})`);
      }
      assert.deepEqual(upward, []);
    });

    it('finds no cycle between units', () => {
      const edges = new Map<string, Set<string>>();
      for (const [file, imported] of crossings(house)) {
        const [from, to] = [house.unitOf(file), house.unitOf(imported)];
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
      const cycles: string[] = [];
      for (const [from, targets] of edges) {
        for (const to of targets) if (edges.get(to)?.has(from) && from < to) cycles.push(`${from} <-> ${to}`);
      }
      assert.deepEqual(cycles, []);
    });
  });
}

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
});
