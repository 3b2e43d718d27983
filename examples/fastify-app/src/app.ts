/**
 * An ordinary Fastify application with vigil registered: its routes are Fastify's own,
 * declared with JSON schemas, and vigil gives them the debug pages, the reports at
 * /_profiler, 404/405/301 and the limits.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, type Config } from 'fastify-vigil';

const newUser = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
  },
} as const;

interface NewUser {
  name: string;
  email: string;
}

export async function buildApp(config: Config = loadConfig()): Promise<FastifyInstance> {
  // Options Fastify takes only at construction: vigil's logger, error handlers and limits.
  const app = Fastify(vigilFastifyOptions(config));
  // Registered before the routes: vigil learns each route as it is added.
  await app.register(vigil, { config });

  app.get('/hello', async () => ({ hello: 'world' }));

  app.post<{ Body: NewUser }>('/users', { schema: { body: newUser } }, async (request, reply) => {
    reply.code(201);
    return { id: 1, ...request.body };
  });

  app.get<{ Params: { id: string } }>('/users/:id(^\\d+$)', async (request) => {
    request.log.info({ id: request.params.id }, 'looking the user up');
    return { id: Number(request.params.id), name: 'Ada' };
  });

  return app;
}
