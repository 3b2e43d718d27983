import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fastifyPathShapes } from './fastify-path.js';
import { RouteMatcher } from './route-matcher.js';
import { Routes } from './routes.js';

const answer = () => 'ok';

function shopMatcher(): RouteMatcher {
  const routes = new Routes()
    .get('/api/products', answer)
    .get('/api/products/{id}', answer, { requirements: { id: '\\d+' } })
    .post('/api/orders', answer)
    .get('/api/users/{id}/orders', answer)
    .get('/a', answer);
  return new RouteMatcher(routes.definitions);
}

const nearPaths = (matcher: RouteMatcher, path: string) => matcher.nearest(path).map((near) => near.path);

describe('a path a few letters from a route is offered that route', () => {
  const matcher = shopMatcher();

  it('names the route one letter away, its parameter taking any segment', () => {
    assert.deepEqual(matcher.nearest('/api/product/3'), [
      { name: 'GET /api/products/{id}', path: '/api/products/{id}', methods: ['GET'], distance: 1 },
    ]);
    assert.deepEqual(nearPaths(matcher, '/api/prodcuts'), ['/api/products']);
    assert.deepEqual(nearPaths(matcher, '/api/user/7/order'), ['/api/users/{id}/orders']);
  });

  it('names a route whose requirement refused the value, at no distance', () => {
    assert.deepEqual(nearPaths(matcher, '/api/products/abc'), ['/api/products/{id}']);
  });

  it('orders by distance, then as declared, and offers three at most', () => {
    const many = new Routes();
    for (const name of ['items', 'itemz', 'item', 'itens', 'iterns']) many.get(`/${name}`, answer);
    assert.deepEqual(nearPaths(new RouteMatcher(many.definitions), '/itemx'), ['/items', '/itemz', '/item']);
  });

  it('offers nothing far, nothing of another number of segments, nothing for short literals', () => {
    assert.deepEqual(matcher.nearest('/api/customers/3'), []);
    assert.deepEqual(matcher.nearest('/products/3'), []);
    assert.deepEqual(matcher.nearest('/b'), []);
  });

  it('reads Fastify paths: parameters, a final wildcard, an optional parameter', () => {
    const native = (path: string) => ({ name: `GET ${path}`, path, methods: ['GET'], shapes: fastifyPathShapes(path) });
    const fastify = new RouteMatcher([
      native('/api/products/:id'),
      native('/static/*'),
      native('/posts/:id?'),
      native('/*'),
    ]);
    assert.deepEqual(nearPaths(fastify, '/api/product/3'), ['/api/products/:id']);
    assert.deepEqual(nearPaths(fastify, '/statik/css/site.css'), ['/static/*']);
    assert.deepEqual(nearPaths(fastify, '/post'), ['/posts/:id?']);
    assert.deepEqual(nearPaths(fastify, '/nothing-like-it'), [], 'a catch-all is never offered');
  });

  it('compares the decoded path', () => {
    assert.deepEqual(nearPaths(matcher, '/api/product%73'), ['/api/products']);
  });
});

describe('the work per path is bounded', () => {
  it('offers nothing for a path too long or of too many segments', () => {
    const matcher = shopMatcher();
    assert.deepEqual(matcher.nearest(`/api/product/${'x'.repeat(10_000)}`), []);
    assert.deepEqual(matcher.nearest(`/api${'/products'.repeat(40)}`), []);
  });

  it('stops comparing once its budget of cells is spent, keeping what it found', () => {
    const long = 'segment'.repeat(20);
    const native = (path: string) => ({ name: `GET ${path}`, path, methods: ['GET'], shapes: [[path]] });
    // Thousands of routes each two edits from the path (each costing its band), then one a single edit away.
    const routes = Array.from({ length: 5000 }, (_, i) => native(`/${long}${String(i).padStart(4, '0')}xy`));
    const matcher = new RouteMatcher([...routes, native(`/${long}000`)]);
    const near = matcher.nearest(`/${long}0000`);
    assert.equal(near[0]?.path, `/${long}0000xy`, 'the first routes were compared');
    assert.ok(!near.some((route) => route.distance === 1), 'the last route, one edit away, was never compared');
  });
});
