/** The profiler's own routes, declared like any application's. */
import { NotFoundHttpError } from '../errors/http-errors.js';
import type { Routes } from '../routing/routes.js';
import type { Profiler } from './profiler.js';

export function declareProfilerRoutes(routes: Routes, profiler: Profiler): void {
  routes.get(
    '/_profiler/{token}',
    async ({ params, reply }) => {
      const report = await profiler.read(params.token);
      if (!report) throw new NotFoundHttpError(`Token "${params.token}" was not found in the database.`);
      reply.header('cache-control', 'no-cache, private');
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(report));
    },
    { name: '_profiler' },
  );
}
