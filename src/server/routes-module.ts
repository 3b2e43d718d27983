/** Loads the module named by ROUTES: its default export (or `routes` export) declares routes. */
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config.js';
import type { RoutesDeclaration } from '../routing/routes.js';

export async function loadRoutesModule(file: string): Promise<RoutesDeclaration> {
  let module: { default?: unknown; routes?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } catch (error) {
    const detail = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' ? 'module not found' : (error as Error).message;
    throw new ConfigError('ROUTES', `cannot load ${file}: ${detail}`);
  }
  const declare = module.default ?? module.routes;
  if (typeof declare !== 'function') {
    throw new ConfigError('ROUTES', `${file} must export a routes declaration as default, e.g. export default defineRoutes((routes) => { ... })`);
  }
  return declare as RoutesDeclaration;
}
