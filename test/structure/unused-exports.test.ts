/**
 * Every name a module of src/ exports is imported by another file (of src/, test/, bench/,
 * scripts/ or examples/), or is the package's public API (what `src/index.ts` and
 * `src/routes-api.ts` export). An export nothing imports is a module's inside made to look
 * like its surface: the check fails on it, naming the file and the name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../support/root.js';

const SOURCES = ['src', 'test', 'bench', 'scripts', 'examples'];
/** The package's entries: what they export is used by the package's users. */
const ENTRIES = ['src/index.ts', 'src/routes-api.ts'];
/** Every name of the module is taken (a namespace import, `export *`, a dynamic import). */
const ALL = '*';

function typeScriptFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A relative specifier as the file it names (`./x.js` is `./x.ts`), or undefined for a package. */
function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const path = resolve(dirname(from), specifier).replace(/\.js$/, '.ts');
  return existsSync(path) ? path : existsSync(join(path, 'index.ts')) ? join(path, 'index.ts') : undefined;
}

interface ModuleFacts {
  /** Names this module exports of its own (declared here, or `export { x }` of a local). */
  own: Set<string>;
  /** Names taken from other modules, by module; ALL for every name. */
  taken: Map<string, Set<string>>;
  /** Re-exports: `export { a as b } from`, `export * from`; a name of ours stands for one of theirs. */
  reexports: Array<{ from: string; names: Map<string, string> | typeof ALL }>;
}

function factsOf(file: string): ModuleFacts {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const facts: ModuleFacts = { own: new Set(), taken: new Map(), reexports: [] };
  const take = (module: string | undefined, name: string) => {
    if (module === undefined) return;
    let names = facts.taken.get(module);
    if (names === undefined) facts.taken.set(module, (names = new Set()));
    names.add(name);
  };
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const module = target(file, node.moduleSpecifier.text);
      const clause = node.importClause;
      if (clause?.name) take(module, 'default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) take(module, ALL);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) take(module, (element.propertyName ?? element.name).text);
    } else if (ts.isExportDeclaration(node)) {
      const module =
        node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
          ? target(file, node.moduleSpecifier.text)
          : undefined;
      const clause = node.exportClause;
      if (node.moduleSpecifier === undefined && clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) facts.own.add(element.name.text);
      } else if (module !== undefined) {
        if (clause === undefined || ts.isNamespaceExport(clause)) facts.reexports.push({ from: module, names: ALL });
        else
          facts.reexports.push({
            from: module,
            names: new Map(clause.elements.map((e) => [e.name.text, (e.propertyName ?? e.name).text])),
          });
      }
    } else if (ts.isExportAssignment(node)) {
      facts.own.add('default');
    } else if (exported(node)) {
      const isDefault = (ts.getModifiers(node as ts.HasModifiers) ?? []).some(
        (m) => m.kind === ts.SyntaxKind.DefaultKeyword,
      );
      if (isDefault) facts.own.add('default');
      else if (ts.isVariableStatement(node))
        for (const declaration of node.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) facts.own.add(declaration.name.text);
        }
      else {
        const name = (node as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) facts.own.add(name.text);
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      take(target(file, node.arguments[0].text), ALL);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return facts;
}

const files = SOURCES.flatMap((directory) => typeScriptFiles(join(ROOT, directory)));
const facts = new Map(files.map((file) => [file, factsOf(file)]));

/** Every name taken of each module, following re-exports down to the module that declares it. */
function usedNames(): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const pending: Array<[string, string]> = [];
  const use = (module: string, name: string) => {
    let names = used.get(module);
    if (names === undefined) used.set(module, (names = new Set()));
    if (names.has(name)) return;
    names.add(name);
    pending.push([module, name]);
  };
  for (const [file, { taken }] of facts) {
    for (const [module, names] of taken) if (module !== file) for (const name of names) use(module, name);
  }
  for (const entry of ENTRIES) use(join(ROOT, entry), ALL);
  while (pending.length > 0) {
    const [module, name] = pending.pop()!;
    for (const { from, names } of facts.get(module)?.reexports ?? []) {
      if (names === ALL) use(from, name);
      else if (name === ALL) for (const original of names.values()) use(from, original);
      else if (names.has(name)) use(from, names.get(name)!);
    }
  }
  return used;
}

describe('no module of src/ exports a name nothing imports', () => {
  it('finds every exported name imported elsewhere, or in the public API', () => {
    const used = usedNames();
    const unused: string[] = [];
    for (const [file, { own }] of facts) {
      if (!file.startsWith(join(ROOT, 'src') + '/') || file.endsWith('.test.ts')) continue;
      const names = used.get(file) ?? new Set();
      if (names.has(ALL)) continue;
      for (const name of own) if (!names.has(name)) unused.push(`${relative(ROOT, file)}: ${name}`);
    }
    assert.deepEqual(unused.sort(), [], `exported, imported nowhere:\n${unused.join('\n')}`);
  });
});
