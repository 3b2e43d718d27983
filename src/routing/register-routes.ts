/**
 * Hands declared routes to Fastify's router (find-my-way): `{id}` with a requirement
 * becomes `:id(^...$)`, and each handler is called with a {@link RouteContext}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext, RouteDefinition } from './routes.js';

/** find-my-way syntax for a declared path: parameters as `:name(regex)`, literal colons doubled. */
export function routerPath(definition: RouteDefinition): string {
  let out = '';
  let last = 0;
  for (const match of definition.path.matchAll(/\{([^{}]+)\}/g)) {
    out += definition.path.slice(last, match.index).replaceAll(':', '::');
    const requirement = definition.requirements[match[1]!];
    out += requirement === undefined ? `:${match[1]}` : `:${match[1]}(^${requirement}$)`;
    last = match.index + match[0].length;
  }
  return out + definition.path.slice(last).replaceAll(':', '::');
}

export function registerRoutes(app: FastifyInstance, definitions: readonly RouteDefinition[]): void {
  for (const definition of definitions) {
    app.route({
      method: [...definition.methods],
      url: routerPath(definition),
      config: { routeName: definition.name, routePath: definition.path },
      handler: (request, reply) => runHandler(definition, request, reply),
    });
  }
}

async function runHandler(definition: RouteDefinition, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const result = await definition.handler(contextFor(request, reply));
  if (result !== undefined) return result;
  // A handler that returns nothing and sent nothing answered "no content".
  if (!reply.sent) reply.code(204).send();
  return reply;
}

function contextFor(request: FastifyRequest, reply: FastifyReply): RouteContext {
  let controller: AbortController | undefined;
  return {
    params: request.params as Record<string, string>,
    query: request.query as RouteContext['query'],
    body: request.body,
    request,
    reply,
    log: request.log,
    // Created on first use: most handlers never look.
    get signal() {
      if (!controller) {
        const abort = new AbortController();
        controller = abort;
        // The response closes before it finished only when the connection went away.
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) abort.abort(new Error('The client closed the connection'));
        });
      }
      return controller.signal;
    },
  };
}
