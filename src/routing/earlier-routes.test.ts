import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { routesAddedBefore, routesListed } from './earlier-routes.js';

describe('routesAddedBefore', () => {
  it('reads the routes of a Fastify instance from its printed tree, HEAD left out', async () => {
    const app = Fastify();
    app.get('/early', async () => 'early');
    app.post('/other', async () => 'posted');
    app.head('/only-head', async () => '');
    assert.deepEqual(routesAddedBefore(app).sort(), ['GET /early', 'HEAD /only-head', 'POST /other']);
    await app.close();
  });

  it('finds none in an instance without routes', async () => {
    const app = Fastify();
    assert.deepEqual(routesAddedBefore(app), []);
    await app.close();
  });

  it('joins the methods of one path and ignores lines that name no methods', () => {
    assert.deepEqual(routesListed('└── / (-)\n    ├── a (GET, HEAD, POST)\n    └── (empty tree)'), ['GET|POST a']);
  });
});
