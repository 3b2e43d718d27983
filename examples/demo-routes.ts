/**
 * The demo application: `ROUTES=examples/demo-routes.ts npm start`.
 * Each route shows one part of the routes API; `collectors` adds a panel to every debug report.
 */
import { defineRoutes, type Collector } from '../src/index.js';

export default defineRoutes((routes) => {
  routes.get('/hello', () => 'hello');

  routes.on(['GET', 'POST'], '/items', ({ request }) => (request.method === 'POST' ? { created: true } : { items: [] }));

  routes.put('/items/{id}', ({ params }) => `item ${params.id}`, { requirements: { id: '\\d+' } });

  routes.get('/with-slash/', () => 'with slash');
});

/** A report section of the application's own: who the client said it was. */
export const collectors: Collector[] = [
  {
    name: 'client',
    collect: ({ request }) => ({ userAgent: request.headers['user-agent'] ?? null, languages: request.headers['accept-language'] ?? null }),
  },
];
