/**
 * The routes of (j) for vigil standalone (ROUTES, compiled): a 5-byte text answer and a
 * small JSON object with its response schema, as `bench/targets/fastify-routes.ts`
 * answers them in bare Fastify.
 */
import { defineRoutes } from '../../src/routes-api.js';
import { statusSchema } from './status-schema.js';

export default defineRoutes((routes) => {
  routes.get('/hello', () => 'hello');
  routes.get('/status', () => ({ ok: true, service: 'bench', items: [1, 2, 3] }), { response: { 200: statusSchema } });
});
