/**
 * The demo application: `ROUTES=examples/demo-routes.ts npm start`.
 * Each route shows one part of the routes API.
 */
import { defineRoutes } from '../src/index.js';

export default defineRoutes((routes) => {
  routes.get('/hello', () => 'hello');

  routes.on(['GET', 'POST'], '/items', ({ request }) => (request.method === 'POST' ? { created: true } : { items: [] }));

  routes.put('/items/{id}', ({ params }) => `item ${params.id}`, { requirements: { id: '\\d+' } });

  routes.get('/with-slash/', () => 'with slash');
});
