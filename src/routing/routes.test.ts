import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { join } from 'node:path';
import { installStackTraces } from '../debug/stack-trace.js';
import { lineOf } from '../../test/support/answers.js';
import { repositoryRoot } from '../../test/support/root.js';
import { routerPath } from './register-routes.js';
import { defineRoutes, RouteDefinitionError, Routes, type HttpMethod } from './routes.js';

const answer = () => 'ok';

/** Declares one route on a fresh table and returns the message it was refused with. */
function refusal(declare: (routes: Routes) => unknown): string {
  try {
    declare(new Routes());
  } catch (error) {
    assert.ok(error instanceof RouteDefinitionError, String(error));
    assert.equal(error.name, 'RouteDefinitionError');
    return error.message;
  }
  assert.fail('the declaration was accepted');
}

describe('a route is declared with its methods, path, requirements and a name', () => {
  it('keeps what was declared, naming the route after its methods and path by default', () => {
    const routes = new Routes().put('/items/{id}', answer, { requirements: { id: '\\d+' } });
    const [route] = routes.definitions;
    assert.deepEqual(
      {
        name: route!.name,
        methods: route!.methods,
        path: route!.path,
        requirements: route!.requirements,
        isolated: route!.isolated,
      },
      { name: 'PUT /items/{id}', methods: ['PUT'], path: '/items/{id}', requirements: { id: '\\d+' }, isolated: false },
    );
    assert.equal(route!.handler, answer);
  });
  it('names a route of several methods with the methods joined by |', () => {
    assert.equal(new Routes().on(['GET', 'POST'], '/form', answer).definitions[0]!.name, 'GET|POST /form');
  });
  it('takes an explicit name and an isolated flag', () => {
    const [route] = new Routes().get('/report', answer, { name: 'report', isolated: true }).definitions;
    assert.deepEqual([route!.name, route!.isolated], ['report', true]);
  });
  it('keeps response schemas by status, and refuses a key that is not a status', () => {
    const schema = { type: 'object', properties: { id: { type: 'integer' } } };
    const [route] = new Routes().get('/item', answer, { response: { 200: schema, '4xx': schema } }).definitions;
    assert.deepEqual(route!.response, { 200: schema, '4xx': schema });
    assert.throws(
      () => new Routes().get('/item', answer, { response: { ok: schema } }),
      /route GET \/item: response schema for "ok": give a status, such as 200 or 2xx/,
    );
    assert.throws(
      () => new Routes().get('/item', answer, { response: { 200: 'object' as unknown as object } }),
      /the response schema for 200 is not a JSON schema object/,
    );
  });
  it('upper-cases methods', () => {
    assert.deepEqual(
      new Routes().on(['get', 'Post'] as unknown as HttpMethod[], '/x', answer).definitions[0]!.methods,
      ['GET', 'POST'],
    );
  });
  it('has a shortcut per method', () => {
    const routes = new Routes()
      .get('/a', answer)
      .post('/a', answer)
      .put('/a', answer)
      .patch('/a', answer)
      .delete('/a', answer);
    assert.deepEqual(
      routes.definitions.map((route) => route.methods[0]),
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    );
  });
  it('keeps routes in declaration order', () => {
    const routes = new Routes().get('/b', answer).get('/a', answer).post('/b', answer);
    assert.deepEqual(
      routes.definitions.map((route) => route.name),
      ['GET /b', 'GET /a', 'POST /b'],
    );
  });
});

describe('methods must be known HTTP methods, at least one', () => {
  it('refuses an empty method list', () => {
    assert.equal(
      refusal((routes) => routes.on([], '/x', answer)),
      'route  /x: declare at least one method',
    );
  });
  it('refuses an unknown method', () => {
    assert.equal(
      refusal((routes) => routes.on('TRACE' as HttpMethod, '/x', answer)),
      'route TRACE /x: unknown method "TRACE"',
    );
    assert.equal(
      refusal((routes) => routes.on(['GET', 'CONNECT'] as HttpMethod[], '/x', answer)),
      'route GET|CONNECT /x: unknown method "CONNECT"',
    );
  });
  it('accepts every listed method, HEAD and OPTIONS included', () => {
    const methods: HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    assert.deepEqual(new Routes().on(methods, '/x', answer).definitions[0]!.methods, methods);
  });
});

describe('a path starts with "/" and has no "*", "?" or "#"', () => {
  it('refuses a relative path', () => {
    assert.equal(
      refusal((routes) => routes.get('items', answer)),
      'route GET items: the path must start with "/"',
    );
    assert.equal(
      refusal((routes) => routes.get('', answer)),
      'route GET : the path must start with "/"',
    );
  });
  it('refuses wildcards, a query and a fragment', () => {
    for (const path of ['/files/*', '/search?q', '/page#top']) {
      assert.equal(
        refusal((routes) => routes.get(path, answer)),
        `route GET ${path}: "*", "?" and "#" cannot appear in a path`,
      );
    }
  });
});

describe('parameters are {name}: a valid identifier, once each, braces balanced', () => {
  it('refuses a parameter name that is not an identifier', () => {
    assert.equal(
      refusal((routes) => routes.get('/items/{1id}', answer)),
      'route GET /items/{1id}: "{1id}" is not a valid parameter name',
    );
    assert.equal(
      refusal((routes) => routes.get('/items/{a-b}', answer)),
      'route GET /items/{a-b}: "{a-b}" is not a valid parameter name',
    );
    assert.equal(
      refusal((routes) => routes.get('/items/{}', answer)),
      'route GET /items/{}: "{}" is not a valid parameter name',
    );
  });
  it('refuses a parameter that appears twice', () => {
    assert.equal(
      refusal((routes) => routes.get('/{id}/x/{id}', answer)),
      'route GET /{id}/x/{id}: a parameter appears twice',
    );
  });
  it('refuses an unbalanced brace', () => {
    assert.equal(
      refusal((routes) => routes.get('/items/{id', answer)),
      'route GET /items/{id: unbalanced "{" or "}"',
    );
    assert.equal(
      refusal((routes) => routes.get('/items/id}', answer)),
      'route GET /items/id}: unbalanced "{" or "}"',
    );
  });
  it('accepts identifiers with underscores and digits after the first character', () => {
    assert.equal(new Routes().get('/{_a1}/{B_2}', answer).definitions.length, 1);
  });
});

describe('a requirement is a regular expression for a declared parameter, without capturing groups', () => {
  it('refuses a requirement for a parameter the path does not have', () => {
    assert.equal(
      refusal((routes) => routes.on('GET', '/items/{id}', answer, { requirements: { slug: '\\w+' } as never })),
      'route GET /items/{id}: requirement for unknown parameter "slug"',
    );
  });
  it('refuses a requirement that is not a regular expression', () => {
    assert.match(
      refusal((routes) => routes.get('/items/{id}', answer, { requirements: { id: '(' } })),
      /^route GET \/items\/\{id\}: requirement for "id" is not a valid regular expression: /,
    );
  });
  it('refuses a capturing group and accepts a non-capturing one', () => {
    assert.equal(
      refusal((routes) => routes.get('/items/{id}', answer, { requirements: { id: '(\\d+)' } })),
      'route GET /items/{id}: requirement for "id" has a capturing group; write (?:...) instead',
    );
    assert.equal(
      refusal((routes) => routes.get('/items/{id}', answer, { requirements: { id: '(?<n>\\d+)' } })),
      'route GET /items/{id}: requirement for "id" has a capturing group; write (?:...) instead',
    );
    assert.deepEqual(
      new Routes().get('/items/{id}', answer, { requirements: { id: '(?:\\d+|new)' } }).definitions[0]!.requirements,
      { id: '(?:\\d+|new)' },
    );
  });
  it('takes a RegExp as its source, and drops the anchors the router adds itself', () => {
    const [route] = new Routes().get('/items/{id}/{slug}', answer, {
      requirements: { id: /^\d+$/, slug: '^[a-z]+$' },
    }).definitions;
    assert.deepEqual(route!.requirements, { id: '\\d+', slug: '[a-z]+' });
  });
  it('keeps an escaped dollar at the end', () => {
    assert.deepEqual(
      new Routes().get('/p/{price}', answer, { requirements: { price: '\\d+\\$' } }).definitions[0]!.requirements,
      { price: '\\d+\\$' },
    );
  });
});

describe('a path and method are declared once', () => {
  it('refuses a second route with the same path and a shared method', () => {
    assert.equal(
      refusal((routes) => routes.on(['GET', 'POST'], '/items', answer).post('/items', answer)),
      'route POST /items: already declared by route "GET|POST /items"',
    );
  });
  it('accepts the same path with other methods, and the same method on another path', () => {
    const routes = new Routes().get('/items', answer).post('/items', answer).get('/items/', answer);
    assert.equal(routes.definitions.length, 3);
  });
});

describe('isolated routes have distinct names', () => {
  it('refuses a second isolated route with the same name', () => {
    assert.equal(
      refusal((routes) =>
        routes.get('/a', answer, { name: 'job', isolated: true }).post('/b', answer, { name: 'job', isolated: true }),
      ),
      'route POST /b: another isolated route is named "job"; give one a distinct name',
    );
  });
  it('accepts the name of a route that is not isolated', () => {
    const routes = new Routes().get('/a', answer, { name: 'job' }).post('/b', answer, { name: 'job', isolated: true });
    assert.equal(routes.definitions.length, 2);
  });
});

describe('defineRoutes types a routes module and returns its declaration unchanged', () => {
  it('returns the same function', () => {
    const declare = (routes: Routes) => void routes.get('/', answer);
    assert.equal(defineRoutes(declare), declare);
  });
});

/** A refusal without the declaration sites it names (file:line in parentheses). */
const withoutSites = (message: string) => message.replace(/ \([^()]*:\d+\)/g, '');

describe("two routes the router cannot tell apart are refused at declaration, in vigil's syntax", () => {
  installStackTraces();

  it('refuses paths that differ only in parameter names, naming both routes', () => {
    assert.equal(
      withoutSites(refusal((routes) => routes.get('/b/{x}', answer).get('/b/{y}', answer))),
      'route GET /b/{y}: the router cannot tell it from route "GET /b/{x}": their paths differ only in parameter names',
    );
  });
  it('says when requirements differ too: the router does not choose by requirement', () => {
    assert.equal(
      withoutSites(
        refusal((routes) =>
          routes
            .get('/b/{x}', answer, { requirements: { x: '\\d+' } })
            .on(['POST', 'GET'], '/b/{y}', answer, { requirements: { y: '[a-z]+' } }),
        ),
      ),
      'route POST|GET /b/{y}: the router cannot tell it from route "GET /b/{x}": their paths differ only in parameter names and requirements',
    );
  });
  it('names where each was declared', () => {
    installStackTraces();
    const file = join(repositoryRoot(import.meta.dirname), 'src/routing/routes.test.ts');
    const message = refusal((routes) => {
      routes.get('/c/{x}.json', answer); // first clashing declaration
      routes.get('/c/{y}.json', answer); // second clashing declaration
    });
    assert.equal(
      message,
      `route GET /c/{y}.json (${file}:${lineOf(file, '// second clashing declaration')}): the router cannot tell it from route "GET /c/{x}.json" (${file}:${lineOf(file, '// first clashing declaration')}): their paths differ only in parameter names`,
    );
  });
  it('accepts what the router can tell apart', () => {
    const routes = new Routes()
      .get('/b/{x}', answer)
      .post('/b/{y}', answer)
      .get('/b/{x}/c', answer)
      .get('/b/{x}/d', answer)
      .get('/n/{x}', answer, { requirements: { x: '\\d+' } })
      .get('/n/{y}', answer);
    assert.equal(routes.definitions.length, 6);
  });
  it("agrees with Fastify's router on which declarations clash", async () => {
    const pairs: Array<[string, Record<string, string>, string, Record<string, string>]> = [
      ['/b/{x}', {}, '/b/{y}', {}],
      ['/b/{x}', { x: '\\d+' }, '/b/{y}', { y: '\\d+' }],
      ['/b/{x}', { x: '\\d+' }, '/b/{x}', { x: '[a-z]+' }],
      ['/b/{x}', { x: '\\d+' }, '/b/{y}', { y: '[a-z]+' }],
      ['/b/{x}', {}, '/b/{y}', { y: '\\d+' }],
      ['/b/{x}.json', {}, '/b/{y}.json', {}],
      ['/b/{x}.json', { x: '\\d+' }, '/b/{y}', { y: '[a-z]+' }],
      ['/b/{x}-{z}', {}, '/b/{y}-{w}', {}],
      ['/b/{x}.{z}', {}, '/b/{y}-{w}', {}],
      ['/b/x-{x}', {}, '/b/x-{y}', {}],
      ['/b/x-{x}', {}, '/b/y-{y}', {}],
      ['/b/{x}', {}, '/b/{y}/c', {}],
      ['/b/{x}/c', {}, '/b/{y}/c', {}],
      ['/b/{x}/c', {}, '/b/{y}/d', {}],
      ['/b/{x}/c', { x: '\\d+' }, '/b/{y}/d', { y: '[a-z]+' }],
      ['/{a}/{b}', {}, '/{c}/{d}', {}],
      ['/a:b/{x}', {}, '/a:b/{y}', {}],
    ];
    for (const [first, firstRequirements, second, secondRequirements] of pairs) {
      let vigilRefuses = false;
      try {
        new Routes()
          .get(first, answer, { requirements: firstRequirements })
          .get(second, answer, { requirements: secondRequirements });
      } catch (error) {
        assert.ok(error instanceof RouteDefinitionError, String(error));
        vigilRefuses = true;
      }
      const app = Fastify();
      let fastifyRefuses = false;
      try {
        for (const [path, requirements] of [
          [first, firstRequirements],
          [second, secondRequirements],
        ] as const) {
          app.get(routerPath({ path, requirements }), answer);
        }
        await app.ready();
      } catch {
        fastifyRefuses = true;
      } finally {
        await app.close();
      }
      assert.equal(
        vigilRefuses,
        fastifyRefuses,
        `${first} ${JSON.stringify(firstRequirements)} then ${second} ${JSON.stringify(secondRequirements)}`,
      );
    }
  });
});

describe('a route remembers where it was declared', () => {
  it('keeps the file and line of the declaring call', () => {
    installStackTraces();
    const file = join(repositoryRoot(import.meta.dirname), 'src/routing/routes.test.ts');
    const [route] = new Routes().get('/where', answer).definitions; // the declaring call
    assert.deepEqual([route!.declaredAt?.file, route!.declaredAt?.line], [file, lineOf(file, '// the declaring call')]);
  });
});
