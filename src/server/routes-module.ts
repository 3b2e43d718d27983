/**
 * Loads the module named by ROUTES: its default export (or `routes` export) declares
 * routes; an optional `collectors` export adds sections to every debug report. A module that
 * cannot load is refused with what is missing: the module itself, a package it imports (by
 * name), or a file it imports.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../config/index.js';
import type { Collector } from '../profiler/model/request-profile.js';
import type { RoutesDeclaration } from '../routing/routes.js';

interface RoutesModule {
  declare: RoutesDeclaration;
  collectors: Collector[];
}

export async function loadRoutesModule(file: string): Promise<RoutesModule> {
  let module: { default?: unknown; routes?: unknown; collectors?: unknown };
  if (!existsSync(file)) throw new ConfigError('ROUTES', `cannot load ${file}: the file does not exist`);
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } catch (error) {
    throw new ConfigError('ROUTES', `cannot load ${file}: ${loadFailure(error, file)}`);
  }
  const declare = module.default ?? module.routes;
  if (typeof declare !== 'function') {
    throw new ConfigError(
      'ROUTES',
      `${file} must export a routes declaration as default, e.g. export default defineRoutes((routes) => { ... })`,
    );
  }
  const collectors = module.collectors ?? [];
  const isCollector = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return false;
    const { name, collect, panel, text } = value as Collector;
    return (
      typeof name === 'string' &&
      typeof collect === 'function' &&
      (panel === undefined || (typeof panel === 'object' && panel !== null)) &&
      (text === undefined || typeof text === 'function')
    );
  };
  if (!Array.isArray(collectors) || !collectors.every(isCollector)) {
    throw new ConfigError(
      'ROUTES',
      `${file}: the "collectors" export must be an array of collectors, each { name, collect(context) }, with an optional panel { title, badge, render } and text(section)`,
    );
  }
  return { declare: declare as RoutesDeclaration, collectors };
}

/**
 * Why a module failed to load, in a line. Node says which module is missing only in its
 * message: `Cannot find package 'x' imported from /f.js` (ES modules), `Cannot find module
 * '/g.js' imported from /f.js`, or `Cannot find module 'x'` with a require stack (CommonJS,
 * as tsx loads `.ts` outside an ES module package).
 */
export function loadFailure(error: unknown, file: string): string {
  const { code, message, requireStack } = (error ?? {}) as NodeJS.ErrnoException & { requireStack?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(file))
    return 'a TypeScript module needs tsx (node --import tsx ...), or compile it to JavaScript';
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return text;
  const found = /^Cannot find (package|module) '([^']+)'(?: imported from (.+))?/.exec(text);
  if (!found) return text.split('\n')[0]!;
  const [, kind, specifier, from] = found as unknown as [string, string, string, string | undefined];
  const importer =
    from?.trim() ?? (Array.isArray(requireStack) && typeof requireStack[0] === 'string' ? requireStack[0] : file);
  const importerPath = importer.startsWith('file:') ? fileURLToPath(importer) : importer;
  const bare = kind === 'package' || !/^(\.{1,2}\/|\/|file:)/.test(specifier);
  if (bare) {
    const name = packageName(specifier);
    return `it imports the package "${name}", which is not installed (imported from ${importerPath}; npm install ${name})`;
  }
  const missing = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(dirname(importerPath), specifier);
  return `it imports ${missing}, which does not exist (imported from ${importerPath})`;
}

/** `left-pad/sub.js` → `left-pad`; `@scope/pkg/sub` → `@scope/pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
