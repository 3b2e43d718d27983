/**
 * The standalone kernel (`npm start`): a Fastify instance built from `vigilFastifyOptions`,
 * the `vigil` plugin, and the routes API routes of the ROUTES module, nothing else; an
 * application that has its own Fastify instance registers the same plugin on it.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { STANDALONE_PARSED_BODY_MAX_SIZE, type Config } from './config/index.js';
import { vigilFastifyOptions } from './fastify-options.js';
import { vigil, type VigilOptions } from './plugin.js';
import type { LineSink } from './profiler/activity/log-tap.js';
import type { Profiler } from './profiler/profiler.js';
import type { RouteTable } from './routing/route-table.js';

export interface KernelOptions extends Omit<VigilOptions, 'config'> {
  config: Config;
  /** Key and certificate to serve HTTPS with; absent when `config.tls` is off. */
  tls?: { key: string; cert: string } | undefined;
  /** Where log lines go on (default: stdout); in debug mode they pass through the profiler's tap. */
  logOutput?: LineSink;
}

export interface Kernel {
  app: FastifyInstance;
  /** Every route the kernel answers: the profiler's and the application's. */
  routes: RouteTable;
  /** Present in debug mode, and in production when it keeps reports (PROFILER_KEEP, PROFILER_SAMPLE). */
  profiler: Profiler | undefined;
}

export async function createKernel({ config, tls, logOutput, ...plugin }: KernelOptions): Promise<Kernel> {
  // Fastify's types tell an HTTPS instance from an HTTP one; the kernel serves either alike.
  const app = (config.tls && tls
    ? Fastify(vigilFastifyOptions(config, { https: tls, logOutput }))
    : Fastify(vigilFastifyOptions(config, { logOutput }))) as unknown as FastifyInstance;
  // The standalone contract: its CORS policy, HTML for `*/*`, PARSED_BODY_MAX_SIZE's own default
  // (the plugin's is Fastify's), and its own start banner, which says where the profiler is.
  const standalone = { ...config, parsedBodyMaxSize: config.parsedBodyMaxSize ?? STANDALONE_PARSED_BODY_MAX_SIZE };
  await app.register(vigil, {
    config: standalone,
    cors: true,
    errorFormat: 'html',
    announceProfiler: false,
    ...plugin,
  });
  return { app, routes: app.vigil.routes, profiler: app.vigil.profiler };
}
