/**
 * An ordinary Fastify application with vigil registered: its routes are Fastify's own,
 * declared with JSON schemas, and vigil gives them the debug pages, the reports at
 * /_profiler, 404/405/301 and the limits. Its outgoing call and, with a database, its
 * statements are in each request's report.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions, type Config } from 'fastify-vigil';
import type { Database } from './database.js';

const newUser = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
  },
} as const;

const user = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
} as const;

interface NewUser {
  name: string;
  email: string;
}

export interface AppOptions {
  /** PostgreSQL (`openDatabase`); without it the routes answer from memory. */
  database?: Database | undefined;
  /** What `/upstream` fetches (UPSTREAM_URL). */
  upstream?: string | undefined;
}

export async function buildApp(
  config: Config = loadConfig(),
  { database, upstream = 'https://example.com/' }: AppOptions = {},
): Promise<FastifyInstance> {
  // Options Fastify takes only at construction: vigil's logger, error handlers and limits.
  const app = Fastify(vigilFastifyOptions(config));
  // Registered before the routes: vigil learns each route as it is added.
  await app.register(vigil, { config });

  // A response schema: Fastify serializes the answer with it (and drops undeclared fields).
  app.get(
    '/hello',
    { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
    async () => ({ hello: 'world' }),
  );

  // The HTTP client panel: the call, its status, time and line, with no set-up.
  app.get('/upstream', async (_request, reply) => {
    const answer = await fetch(upstream);
    reply.code(answer.ok ? 200 : 502);
    return answer.json();
  });

  // The Database panel: one statement for the list, then one per user, the N+1 pattern it
  // groups as "3 identical".
  app.get('/users', async () => {
    if (!database) return [{ id: 1, name: 'Ada' }];
    const { rows } = await database.query('SELECT generate_series(1, 3) AS id');
    const users = [];
    for (const { id } of rows)
      users.push((await database.query("SELECT $1::int AS id, 'user ' || $1 AS name", [id])).rows[0]);
    return users;
  });
  if (database) app.addHook('onClose', () => database.end());

  app.post<{ Body: NewUser }>('/users', { schema: { body: newUser } }, async (request, reply) => {
    reply.code(201);
    return { id: 1, ...request.body };
  });

  app.get<{ Params: { id: string } }>(
    '/users/:id(^\\d+$)',
    { schema: { response: { 200: user } } },
    async (request) => {
      request.log.info({ id: request.params.id }, 'looking the user up');
      return { id: Number(request.params.id), name: 'Ada' };
    },
  );

  return app;
}

// What `vigil debug:router --app dist/app.js` builds (made ready, never listening) to list the routes.
export default buildApp;
