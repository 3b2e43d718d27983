/**
 * (j) and (k) in bare Fastify, logger off (LOGGER_LEVEL gives it Fastify's own): the routes vigil serves in those targets, with no
 * plugin. ROUTES_OF=j: `GET /hello` (5 bytes of text) and `GET /status` (JSON, response
 * schema), over HTTPS with the key and certificate in TLS_KEY and TLS_CERT (vigil's own).
 * ROUTES_OF=k: the routes of `examples/fastify-app` measured there, over plain HTTP as the
 * example serves: `GET /hello` and `GET /users/:id`, each with its response schema.
 */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { statusSchema } from './status-schema.js';

const which = process.env.ROUTES_OF;
const tls =
  process.env.TLS_KEY && process.env.TLS_CERT
    ? { key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) }
    : undefined;
// LOGGER_LEVEL: Fastify's own pino logger at that level, as an application without vigil would log.
const logger = process.env.LOGGER_LEVEL ? { level: process.env.LOGGER_LEVEL } : false;
const app = (tls ? Fastify({ logger, https: tls }) : Fastify({ logger })) as unknown as FastifyInstance;

if (which === 'j') {
  app.get('/hello', async () => 'hello');
  app.get('/status', { schema: { response: { 200: statusSchema } } }, async () => ({
    ok: true,
    service: 'bench',
    items: [1, 2, 3],
  }));
} else if (which === 'k') {
  const hello = { type: 'object', properties: { hello: { type: 'string' } } } as const;
  const user = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } as const;
  app.get('/hello', { schema: { response: { 200: hello } } }, async () => ({ hello: 'world' }));
  app.get<{ Params: { id: string } }>(
    '/users/:id(^\\d+$)',
    { schema: { response: { 200: user } } },
    async (request) => {
      request.log.info({ id: request.params.id }, 'looking the user up');
      return { id: Number(request.params.id), name: 'Ada' };
    },
  );
} else {
  throw new Error('ROUTES_OF must be j or k');
}
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
