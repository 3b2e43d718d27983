/**
 * `--app <module>` of `debug:router` and `router:match`: the routes of an application that
 * registers vigil as a plugin. The module's default export (or a CommonJS module itself)
 * builds the application (a function returning the Fastify instance, or a promise of it),
 * is the instance itself, or is a plugin, as fastify-cli generates (`(fastify, opts)`, with
 * an `options` export): the plugin is registered on an instance made here. The application
 * is made ready, never listening, its route table read from vigil, then closed. A `.ts`
 * module is loaded through the project's tsx when Node cannot load it alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { VigilKernel } from '../plugin.js';
import type { KnownRoute } from '../routing/route-table.js';
import { loadFailure } from '../server/routes-module.js';

/** An `--app` module that cannot give its routes: the message says what to do, in a line. */
export class AppModuleError extends Error {
  override name = 'AppModuleError';
}

interface ApplicationRoutes {
  /** The application's routes, native and routes API, in the order they were added; the profiler's left out. */
  routes: readonly KnownRoute[];
  trustedHosts: VigilKernel['config']['trustedHosts'];
}

/** What an `--app` module exports, for the help and the refusal. */
export const APP_EXPORT =
  'as default a function that builds the Fastify application (and may be async), the application itself without listening, or a plugin (fastify, opts) as fastify-cli generates';

/** Imports `file` (relative to the working directory), builds and readies its application, reads its routes and closes it. */
export async function applicationRoutes(file: string): Promise<ApplicationRoutes> {
  const path = resolve(file);
  if (!existsSync(path)) throw new AppModuleError(`cannot load ${file}: the file does not exist`);
  let module: ApplicationModule;
  try {
    module = await importApplication(path);
  } catch (error) {
    throw new AppModuleError(`cannot load ${file}: ${loadFailure(error, path)}`);
  }
  const { app, kernel } = await build(module, path);
  if (!isFastify(app)) throw new AppModuleError(`${file} must export ${APP_EXPORT}`);
  try {
    await app.ready();
    const found = kernel() ?? ((app as Partial<FastifyInstance>).vigil as VigilKernel | undefined);
    if (found?.routes === undefined) {
      throw new AppModuleError(
        `${file} builds a Fastify application without vigil: register it (await app.register(vigil, { config })) before the routes`,
      );
    }
    return {
      routes: found.routes.known.filter((route) => !route.name.startsWith('_profiler')),
      trustedHosts: found.config.trustedHosts,
    };
  } finally {
    await app.close();
  }
}

interface ApplicationModule {
  default?: unknown;
  /** fastify-cli's options of the instance its plugin is registered on (`fastify start -o`). */
  options?: unknown;
}

/**
 * The module; a TypeScript one through the tsx its project has installed (registered for
 * this command's process only), which maps `.js` specifiers to `.ts` files as the project's
 * own runs do; without tsx, as Node loads it.
 */
async function importApplication(path: string): Promise<ApplicationModule> {
  const tsx = /\.[cm]?ts$/.test(path) ? projectTsx(path) : undefined;
  if (tsx !== undefined) ((await import(tsx)) as { register(): unknown }).register();
  return (await import(pathToFileURL(path).href)) as ApplicationModule;
}

/** tsx's ESM API as the module's own project installs it (its `import` entry: the `require` one is CommonJS). */
function projectTsx(path: string): string | undefined {
  try {
    const manifest = createRequire(path).resolve('tsx/package.json');
    const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      exports?: Record<string, { import?: { default?: string } }>;
    };
    const entry = exports?.['./esm/api']?.import?.default;
    return entry === undefined ? undefined : pathToFileURL(resolve(dirname(manifest), entry)).href;
  } catch {
    return undefined;
  }
}

/**
 * The application the module makes, and how to find vigil's parts in it: a plugin registers
 * vigil in its own scope, whose instance the `onRoute` hook of the root it is registered on
 * sees (`this` is the instance a route is added to).
 */
async function build(
  module: ApplicationModule,
  path: string,
): Promise<{ app: unknown; kernel: () => VigilKernel | undefined }> {
  const exported = module.default ?? module;
  if (!isPlugin(exported, module)) {
    const app = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
    return { app, kernel: () => undefined };
  }
  const Fastify = await projectFastify(path);
  const app = Fastify(instanceOptions(module.options));
  let kernel: VigilKernel | undefined;
  app.addHook('onRoute', function findVigil(this: Partial<FastifyInstance>) {
    kernel ??= this.vigil as VigilKernel | undefined;
  });
  await app.register(exported as Parameters<FastifyInstance['register']>[0]);
  return { app, kernel: () => kernel };
}

/** fastify-cli's shape: a function of (fastify, opts), or any function beside an `options` export, or one fastify-plugin marked. */
function isPlugin(exported: unknown, module: ApplicationModule): boolean {
  if (typeof exported !== 'function' || isFastify(exported)) return false;
  const marked = (exported as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] !== undefined;
  return exported.length >= 2 || module.options !== undefined || marked;
}

/** The Fastify the application's project installs (its plugins were made for it), else vigil's own. */
async function projectFastify(path: string): Promise<(options?: FastifyServerOptions) => FastifyInstance> {
  let specifier = 'fastify';
  try {
    specifier = pathToFileURL(createRequire(path).resolve('fastify')).href;
  } catch {
    // Not installed beside the module: vigil's own.
  }
  const loaded = (await import(specifier)) as { default: unknown };
  return loaded.default as (options?: FastifyServerOptions) => FastifyInstance;
}

/**
 * The module's `options` for the instance, its logger left out: only the routes are read,
 * and a command's standard output (`--json`) carries nothing else.
 */
function instanceOptions(options: unknown): FastifyServerOptions {
  const given = typeof options === 'object' && options !== null ? (options as FastifyServerOptions) : {};
  const {
    logger: _logger,
    loggerInstance: _instance,
    ...rest
  } = given as FastifyServerOptions & {
    loggerInstance?: unknown;
  };
  return { ...rest, logger: false };
}

function isFastify(value: unknown): value is FastifyInstance {
  const candidate = value as Partial<FastifyInstance> | null | undefined;
  return (
    typeof candidate?.ready === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.route === 'function'
  );
}
