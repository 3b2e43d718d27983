/**
 * (k): `examples/fastify-app` as its server starts it, with `vigil` resolved to this tree's
 * compiled package (`dist/src/index.js`) for `fastify-vigil`, as the example's installed tarball would give it.
 * STATEMENT_AT_BOOT=1 (ks): one statement published at boot on mysql2's query channel, as an
 * application whose pool connects at start makes one, so that requests enter their context.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { register } from 'node:module';

register('./vigil-resolve.mjs', import.meta.url);
// Not a literal: the example is compiled against the package, not this project's sources.
const server = '../../examples/fastify-app/src/server.ts';
await import(server);
if (process.env.STATEMENT_AT_BOOT === '1')
  await diagnosticsChannel
    .tracingChannel('mysql2:query')
    .tracePromise(async () => [[]], { query: 'SELECT 1', values: [] });
