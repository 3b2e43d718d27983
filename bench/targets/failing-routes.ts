/**
 * The routes of `npm run bench:kept` for vigil standalone (ROUTES, compiled): a failure that
 * logs a line and runs a statement first (published on mysql2's query channel, as the
 * library does) and throws an error with a cause, as a production 500 whose report is kept.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { defineRoutes } from '../../src/routes-api.js';

const mysqlQuery = diagnosticsChannel.tracingChannel('mysql2:query');

export default defineRoutes((routes) => {
  routes.get('/orders/fail', async ({ log }) => {
    log.warn('looking order 7 up');
    await mysqlQuery.tracePromise(async () => [[{ id: 7 }]], {
      query: 'SELECT total FROM orders WHERE id = 7',
      values: [],
    });
    throw new Error('order 7 has no total', { cause: new RangeError('total is negative') });
  });
});
