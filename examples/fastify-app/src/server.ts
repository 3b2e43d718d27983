/**
 * Starts the example on HOST and PORT (vigil's settings, from the environment or .env);
 * DATABASE_URL (optional) names its PostgreSQL, UPSTREAM_URL what `/upstream` fetches.
 */
import { loadConfig } from 'fastify-vigil';
import { buildApp } from './app.js';
import { openDatabase } from './database.js';

const config = loadConfig();
const app = await buildApp(config, {
  database: openDatabase(process.env.DATABASE_URL),
  upstream: process.env.UPSTREAM_URL,
});
const address = await app.listen({ host: config.host, port: config.port });
process.stdout.write(`fastify-app listening on ${address}\n`);

// The reports still queued are written before the process ends.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
