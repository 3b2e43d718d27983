import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RouteMatcher } from './route-matcher.js';
import { fastifyPathShapes } from './fastify-path.js';
import { Routes } from './routes.js';

const answer = () => 'ok';

/** The demo application's table, plus a few paths for the edge cases. */
function demoMatcher(): RouteMatcher {
  const routes = new Routes()
    .get('/hello', answer)
    .get('/items', answer)
    .post('/items', answer)
    .put('/items/{id}', answer, { requirements: { id: '\\d+' } })
    .get('/with-slash/', answer)
    .on(['PATCH', 'DELETE'], '/items/{id}/tags/{tag}', answer, { requirements: { id: '\\d+', tag: '[a-z]+' } })
    .get('/files/v1.0', answer)
    .get('/café', answer);
  return new RouteMatcher(routes.definitions);
}

describe('allowed methods are those of every route matching the path, in declaration order, without repeats', () => {
  const matcher = demoMatcher();

  it('lists the methods of one route', () => {
    assert.deepEqual(matcher.allowedMethods('/hello'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/items/42/tags/red'), ['PATCH', 'DELETE']);
  });
  it('joins the methods of several routes on one path in the order they were declared', () => {
    assert.deepEqual(matcher.allowedMethods('/items'), ['GET', 'POST']);
    const reversed = new RouteMatcher(new Routes().post('/items', answer).get('/items', answer).definitions);
    assert.deepEqual(reversed.allowedMethods('/items'), ['POST', 'GET']);
  });
  it('lists a method once when two routes on the path declare it', () => {
    const overlapping = new RouteMatcher(
      new Routes().on(['GET', 'PUT'], '/a/{x}', answer).on(['PUT', 'POST'], '/a/b', answer).definitions,
    );
    assert.deepEqual(overlapping.allowedMethods('/a/b'), ['GET', 'PUT', 'POST']);
  });
  it('does not add HEAD for a GET route', () => {
    assert.deepEqual(matcher.allowedMethods('/hello'), ['GET']);
  });
  it('is empty for a path no route has, and for an empty table', () => {
    assert.deepEqual(matcher.allowedMethods('/robots.txt'), []);
    assert.deepEqual(matcher.allowedMethods('/hello/'), []);
    assert.deepEqual(new RouteMatcher([]).allowedMethods('/'), []);
  });
});

describe('a path matches a route as a whole, parameters against their requirements', () => {
  const matcher = demoMatcher();

  it('matches a parameter that meets its requirement', () => {
    assert.deepEqual(matcher.allowedMethods('/items/42'), ['PUT']);
  });
  it('does not match a parameter that fails its requirement, anchored at both ends', () => {
    for (const path of [
      '/items/abc',
      '/items/4a',
      '/items/a4',
      '/items/',
      '/items/42/tags/Red',
      '/items/42/tags/red1',
    ]) {
      assert.deepEqual(matcher.allowedMethods(path), [], path);
    }
  });
  it('lets an unconstrained parameter take anything but a slash', () => {
    const free = new RouteMatcher(new Routes().get('/u/{name}', answer).definitions);
    assert.deepEqual(free.allowedMethods('/u/any thing.x'), ['GET']);
    assert.deepEqual(free.allowedMethods('/u/a/b'), []);
    assert.deepEqual(free.allowedMethods('/u/'), []);
  });
  it('takes the literal parts of a path literally, not as a regular expression', () => {
    assert.deepEqual(matcher.allowedMethods('/files/v1.0'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/files/v1x0'), []);
    const special = new RouteMatcher(new Routes().get('/a+b', answer).get('/api.v1/{id}', answer).definitions);
    assert.deepEqual(special.allowedMethods('/a+b'), ['GET']);
    assert.deepEqual(special.allowedMethods('/aab'), []);
    assert.deepEqual(special.allowedMethods('/api.v1/7'), ['GET']);
    assert.deepEqual(special.allowedMethods('/apixv1/7'), []);
  });
  it('does not match a prefix or an extension of the path', () => {
    assert.deepEqual(matcher.allowedMethods('/hell'), []);
    assert.deepEqual(matcher.allowedMethods('/hello/x'), []);
    assert.deepEqual(matcher.allowedMethods('/x/hello'), []);
  });
});

describe('a path is compared percent-decoded, and a malformed escape is compared as sent', () => {
  const matcher = demoMatcher();

  it('matches an encoded path to its route', () => {
    assert.deepEqual(matcher.allowedMethods('/caf%C3%A9'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/hell%6F'), ['GET']);
  });
  it('does not throw on a malformed escape', () => {
    assert.deepEqual(matcher.allowedMethods('/caf%C3'), []);
    assert.deepEqual(matcher.allowedMethods('/%E0%A4%A'), []);
  });
});

describe('a route answers its methods, and a GET route answers HEAD', () => {
  const matcher = demoMatcher();

  it('answers a declared method', () => {
    assert.equal(matcher.answers('GET', '/hello'), true);
    assert.equal(matcher.answers('POST', '/items'), true);
  });
  it('answers HEAD where GET is declared, and nowhere else', () => {
    assert.equal(matcher.answers('HEAD', '/hello'), true);
    assert.equal(matcher.answers('HEAD', '/items/42'), false);
  });
  it('does not answer another method, or an unrouted path', () => {
    assert.equal(matcher.answers('POST', '/hello'), false);
    assert.equal(matcher.answers('GET', '/items/42'), false);
    assert.equal(matcher.answers('GET', '/nowhere'), false);
  });
});

describe('the closest routes share the longest literal prefix with the path, and each says why it missed', () => {
  it('explains a method the route does not take', () => {
    assert.deepEqual(demoMatcher().closest('DELETE', '/hello')[0], {
      name: 'GET /hello',
      path: '/hello',
      methods: ['GET'],
      reason: 'the path matches but DELETE is not among GET',
    });
  });
  it('explains a parameter that fails its requirement, naming it, its value and the requirement', () => {
    const [nearest] = demoMatcher().closest('PUT', '/items/abc');
    assert.equal(nearest!.path, '/items/{id}');
    assert.equal(nearest!.reason, 'parameter "id" = "abc" does not match the requirement \\d+');
  });
  it('names the first failing parameter of several, checking each as a whole', () => {
    const reasonFor = (path: string) =>
      demoMatcher()
        .closest('PATCH', path)
        .find((miss) => miss.path === '/items/{id}/tags/{tag}')!.reason;
    assert.equal(reasonFor('/items/1/tags/RED'), 'parameter "tag" = "RED" does not match the requirement [a-z]+');
    assert.equal(reasonFor('/items/x/tags/RED'), 'parameter "id" = "x" does not match the requirement \\d+');
    assert.equal(reasonFor('/items/1x/tags/red'), 'parameter "id" = "1x" does not match the requirement \\d+');
  });
  it('shows the decoded value of a failing parameter', () => {
    const [nearest] = demoMatcher().closest('PUT', '/items/a%20b');
    assert.equal(nearest!.reason, 'parameter "id" = "a b" does not match the requirement \\d+');
  });
  it('says the path does not match otherwise', () => {
    const [nearest] = demoMatcher().closest('GET', '/hello/world');
    assert.deepEqual([nearest!.path, nearest!.reason], ['/hello', 'the path does not match']);
  });
  it('orders routes by the length of the shared prefix, longest first, ties in declaration order', () => {
    const paths = demoMatcher()
      .closest('GET', '/items/7/tag')
      .map((miss) => miss.path);
    assert.deepEqual(paths, ['/items/{id}', '/items/{id}/tags/{tag}', '/items', '/items']);
  });
  it('gives at most five routes, or as many as asked', () => {
    const many = new Routes();
    for (const n of [1, 2, 3, 4, 5, 6, 7]) many.get(`/a${n}`, answer);
    assert.deepEqual(
      new RouteMatcher(many.definitions).closest('GET', '/a').map((miss) => miss.path),
      ['/a1', '/a2', '/a3', '/a4', '/a5'],
    );
    assert.deepEqual(
      demoMatcher()
        .closest('GET', '/hello', 1)
        .map((miss) => miss.path),
      ['/hello'],
    );
  });
  it('leaves out routes sharing no more than the leading slash when the table is larger than the limit', () => {
    assert.deepEqual(demoMatcher().closest('GET', '/zzz'), []);
    assert.deepEqual(
      demoMatcher()
        .closest('GET', '/wi')
        .map((miss) => miss.path),
      ['/with-slash/'],
    );
  });
  it('keeps every route of a table no larger than the limit, however far', () => {
    const small = new RouteMatcher(new Routes().get('/hello', answer).post('/items', answer).definitions);
    assert.deepEqual(
      small.closest('GET', '/zzz').map((miss) => miss.path),
      ['/hello', '/items'],
    );
  });
});

describe("the profiler's own routes are never the closest to a request", () => {
  it("offers the application's routes only, even when the kernel's share more of the path", () => {
    const routes = new Routes()
      .get('/_profiler', answer, { name: '_profiler_home' })
      .get('/_profiler/{token}', answer, { name: '_profiler' })
      .get('/hello', answer);
    const closest = new RouteMatcher(routes.definitions).closest('GET', '/_profilex');
    assert.deepEqual(
      closest.map((miss) => miss.name),
      ['GET /hello'],
    );
  });
});

describe('trace tells, for every route, whether it answers and why not (router:match)', () => {
  const matcher = demoMatcher();
  const reasons = (method: string, path: string) =>
    Object.fromEntries(matcher.trace(method, path).map((trace) => [trace.name, `${trace.verdict}: ${trace.reason}`]));

  it('names the route that matches, HEAD answered by GET', () => {
    assert.equal(reasons('PUT', '/items/12')['PUT /items/{id}'], 'match: Route "PUT /items/{id}" matches');
    assert.equal(reasons('HEAD', '/hello')['GET /hello'], 'match: Route "GET /hello" matches');
  });
  it('says which requirement failed, with its pattern', () => {
    assert.equal(
      reasons('PUT', '/items/abc')['PUT /items/{id}'],
      'almost: Route "PUT /items/{id}" almost matches but requirement for "id" does not match (\\d+)',
    );
    assert.equal(
      reasons('PATCH', '/items/1/tags/RED')['PATCH|DELETE /items/{id}/tags/{tag}'],
      'almost: Route "PATCH|DELETE /items/{id}/tags/{tag}" almost matches but requirement for "tag" does not match ([a-z]+)',
    );
  });
  it('says when only the method is wrong', () => {
    assert.equal(
      reasons('DELETE', '/hello')['GET /hello'],
      'almost: Route "GET /hello" almost matches but method "DELETE" is not among GET',
    );
  });
  it('says when the path is another', () => {
    assert.equal(
      reasons('GET', '/nope')['GET /hello'],
      'miss: Route "GET /hello" does not match: path "/hello" does not match',
    );
  });
  it('keeps the declaration order', () => {
    assert.deepEqual(
      matcher.trace('GET', '/').map((trace) => trace.name),
      [
        'GET /hello',
        'GET /items',
        'POST /items',
        'PUT /items/{id}',
        'GET /with-slash/',
        'PATCH|DELETE /items/{id}/tags/{tag}',
        'GET /files/v1.0',
        'GET /café',
      ],
    );
  });
});

describe('routes given as Fastify paths match as find-my-way matches them, and are shown as declared', () => {
  const native = (methods: string[], path: string) => ({
    name: `${methods.join('|')} ${path}`,
    path,
    methods,
    shapes: fastifyPathShapes(path),
  });
  const matcher = new RouteMatcher([
    native(['GET'], '/users/:id(^\\d+$)'),
    native(['POST'], '/users'),
    native(['GET'], '/static/*'),
    native(['GET'], '/posts/:slug?'),
    native(['GET'], '/img/:file(^\\d+).png'),
  ]);

  it('matches parameters against their expressions, and lists the methods', () => {
    assert.deepEqual(matcher.allowedMethods('/users/42'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/users/abc'), []);
    assert.deepEqual(matcher.allowedMethods('/img/12.png'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/img/ab.png'), []);
  });
  it('lets a wildcard take the rest of the path, slashes included', () => {
    assert.deepEqual(matcher.allowedMethods('/static/css/site.css'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/static/'), ['GET']);
  });
  it('matches a path with and without its optional last parameter', () => {
    assert.deepEqual(matcher.allowedMethods('/posts/first'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/posts'), ['GET']);
  });
  it('explains a failed expression, and shows the route as declared', () => {
    const [nearest] = matcher.closest('GET', '/users/abc');
    assert.deepEqual(nearest, {
      name: 'GET /users/:id(^\\d+$)',
      path: '/users/:id(^\\d+$)',
      methods: ['GET'],
      reason: 'parameter "id" = "abc" does not match the requirement \\d+',
    });
  });
});

describe('a catch-all route never makes a path a 405', () => {
  it('leaves OPTIONS * out of Allow, as Fastify answers such a path 404', () => {
    const matcher = new RouteMatcher([
      { name: 'OPTIONS *', path: '*', methods: ['OPTIONS'], shapes: fastifyPathShapes('/*') },
      { name: 'GET /hello', path: '/hello', methods: ['GET'], shapes: fastifyPathShapes('/hello') },
      { name: 'GET /public/*', path: '/public/*', methods: ['GET'], shapes: fastifyPathShapes('/public/*') },
    ]);
    assert.deepEqual(matcher.allowedMethods('/robots.txt'), []);
    assert.deepEqual(matcher.allowedMethods('/hello'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/public/a.css'), ['GET']);
  });
});

describe('several parameters in one segment match however the path splits between them, as one backtracking expression would', () => {
  it('gives a parameter its share wherever the literal after it recurs', () => {
    const matcher = new RouteMatcher(
      new Routes()
        .get('/v/{name}.{ext}', answer, { requirements: { ext: 'png|jpg' } })
        .get('/at/{a}-{b}', answer, { requirements: { a: '\\d+-\\d+' } })
        .get('/date/{y}-{m}-{d}', answer).definitions,
    );
    assert.deepEqual(matcher.allowedMethods('/v/a.b.png'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/v/a.b.gif'), []);
    assert.deepEqual(matcher.allowedMethods('/at/1-2-z'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/at/1-z-2'), []);
    assert.deepEqual(matcher.allowedMethods('/date/2024-01-02-03'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/date/2024-01'), []);
    assert.deepEqual(matcher.allowedMethods('/date/--'), []);
    assert.deepEqual(matcher.allowedMethods('/date/---'), []);
    assert.deepEqual(matcher.allowedMethods('/date/-----'), ['GET']);
  });
  it('names a failing parameter with the value the first parameters take as long', () => {
    const matcher = new RouteMatcher(
      new Routes().get('/p/{a}-{b}', answer, { requirements: { b: '\\d+' } }).definitions,
    );
    assert.equal(
      matcher.closest('GET', '/p/x-y-z')[0]!.reason,
      'parameter "b" = "z" does not match the requirement \\d+',
    );
  });
  it('lets a native wildcard after such a segment take the rest', () => {
    const matcher = new RouteMatcher([
      { name: 'w', path: '/w/:a-:b/*', methods: ['GET'], shapes: fastifyPathShapes('/w/:a-:b/*') },
    ]);
    assert.deepEqual(matcher.allowedMethods('/w/x-y/any/thing'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/w/x-y/'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/w/xy/any'), []);
  });
});

describe('a requirement is tried on one delimited value, as the router tries it', () => {
  it('never takes a slash, whatever its expression', () => {
    const matcher = new RouteMatcher(
      new Routes().get('/files/{path}', answer, { requirements: { path: '.+' } }).definitions,
    );
    assert.deepEqual(matcher.allowedMethods('/files/a.txt'), ['GET']);
    assert.deepEqual(matcher.allowedMethods('/files/a/b.txt'), []);
  });
  it('never accepts a value longer than the router takes', () => {
    const matcher = demoMatcher();
    assert.deepEqual(matcher.allowedMethods(`/items/${'1'.repeat(500)}`), ['PUT']);
    assert.deepEqual(matcher.allowedMethods(`/items/${'1'.repeat(501)}`), []);
  });
});

describe('a path is matched in time linear in its length, however its parameters could split it (issue 26)', () => {
  const native = (path: string) => ({ name: `GET ${path}`, path, methods: ['GET'], shapes: fastifyPathShapes(path) });
  const matcher = new RouteMatcher([
    ...new Routes()
      .get('/date/{y}-{m}-{d}', answer)
      .get('/v/{a}.{b}.{c}.png', answer)
      .get('/r/{a}-{b}-{c}', answer, { requirements: { b: '\\d+', c: '[a-z-]+x' } }).definitions,
    native('/d/:y-:m-:d'),
    native('/n/:a-:b(^[\\d-]+$)-:c.png'),
    native('/w/:a-:b-:c/*'),
  ]);
  const run = '-'.repeat(4_000);
  const dots = '.'.repeat(4_000);
  const hostile = [
    `/date/${run}/`,
    `/d/${run}/`,
    `/v/${dots}.pnx`,
    `/r/${run}-1-y`,
    `/r/1${run}`,
    `/n/${run}.pnx`,
    `/n/${run}`,
    `/w/${run}`,
    `/date/${run}-`,
  ];

  for (const path of hostile) {
    it(`decides ${path.slice(0, 12)}... (${path.length} characters) at once, for the 405, the report and router:match`, () => {
      const started = performance.now();
      matcher.allowedMethods(path);
      matcher.closest('POST', path);
      matcher.trace('POST', path);
      // A bound on where the work goes, not a speed target: backtracking took seconds or minutes.
      const ms = performance.now() - started;
      assert.ok(ms < 1_000, `${Math.round(ms)} ms`);
    });
  }
});
