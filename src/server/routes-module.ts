/**
 * Loads the module named by ROUTES: its default export (or `routes` export) declares
 * routes; an optional `collectors` export adds sections to every debug report.
 */
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config.js';
import type { Collector } from '../profiler/request-profile.js';
import type { RoutesDeclaration } from '../routing/routes.js';

export interface RoutesModule {
  declare: RoutesDeclaration;
  collectors: Collector[];
}

export async function loadRoutesModule(file: string): Promise<RoutesModule> {
  let module: { default?: unknown; routes?: unknown; collectors?: unknown };
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
  const collectors = module.collectors ?? [];
  const isCollector = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return false;
    const { name, collect, panel, text } = value as Collector;
    return typeof name === 'string' && typeof collect === 'function' && (panel === undefined || (typeof panel === 'object' && panel !== null)) && (text === undefined || typeof text === 'function');
  };
  if (!Array.isArray(collectors) || !collectors.every(isCollector)) {
    throw new ConfigError('ROUTES', `${file}: the "collectors" export must be an array of collectors, each { name, collect(context) }, with an optional panel { title, badge, render } and text(section)`);
  }
  return { declare: declare as RoutesDeclaration, collectors };
}
