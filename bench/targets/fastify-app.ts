/**
 * (k): `examples/fastify-app` as its server starts it, with `vigil` resolved to this tree's
 * compiled package (`dist/src/index.js`) for `fastify-vigil`, as the example's installed tarball would give it.
 */
import { register } from 'node:module';

register('./vigil-resolve.mjs', import.meta.url);
// Not a literal: the example is compiled against the package, not this project's sources.
const server = '../../examples/fastify-app/src/server.ts';
await import(server);
