/**
 * The routes of (j) for vigil standalone (ROUTES, compiled): a 5-byte text answer and a
 * small JSON object, as `bench/targets/fastify-routes.ts` answers them in bare Fastify.
 * The routes API has no response schema, so the object goes through Fastify's default
 * serializer here.
 */
import { defineRoutes } from '../../src/routes-api.js';

export default defineRoutes((routes) => {
  routes.get('/hello', () => 'hello');
  routes.get('/status', () => ({ ok: true, service: 'bench', items: [1, 2, 3] }));
});
