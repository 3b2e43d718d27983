/**
 * `--app <module>` of `debug:router` and `router:match`: the routes of an application that
 * registers vigil as a plugin. The module's default export builds the application (a
 * function returning the Fastify instance, or a promise of it) or is the instance itself;
 * it is made ready, never listening, its route table read from `app.vigil`, then closed.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { VigilKernel } from '../plugin.js';
import type { KnownRoute } from '../routing/route-table.js';
import { loadFailure } from '../server/routes-module.js';

/** An `--app` module that cannot give its routes: the message says what to do, in a line. */
export class AppModuleError extends Error {
  override name = 'AppModuleError';
}

export interface ApplicationRoutes {
  /** The application's routes, native and routes API, in the order they were added; the profiler's left out. */
  routes: readonly KnownRoute[];
  trustedHosts: VigilKernel['config']['trustedHosts'];
}

/** What an `--app` module exports, for the help and the refusal. */
export const APP_EXPORT =
  'as default a function that builds the Fastify application (and may be async), or the application itself, without listening';

/** Imports `file` (relative to the working directory), builds and readies its application, reads its routes and closes it. */
export async function applicationRoutes(file: string): Promise<ApplicationRoutes> {
  const path = resolve(file);
  if (!existsSync(path)) throw new AppModuleError(`cannot load ${file}: the file does not exist`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new AppModuleError(`cannot load ${file}: ${loadFailure(error, path)}`);
  }
  const exported = module.default;
  const app = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!isFastify(app)) throw new AppModuleError(`${file} must export ${APP_EXPORT}`);
  try {
    await app.ready();
    const kernel = (app as Partial<FastifyInstance>).vigil as VigilKernel | undefined;
    if (kernel?.routes === undefined) {
      throw new AppModuleError(
        `${file} builds a Fastify application without vigil: register it (await app.register(vigil, { config })) before the routes`,
      );
    }
    return {
      routes: kernel.routes.known.filter((route) => !route.name.startsWith('_profiler')),
      trustedHosts: kernel.config.trustedHosts,
    };
  } finally {
    await app.close();
  }
}

function isFastify(value: unknown): value is FastifyInstance {
  const candidate = value as Partial<FastifyInstance> | null | undefined;
  return (
    typeof candidate?.ready === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.route === 'function'
  );
}
