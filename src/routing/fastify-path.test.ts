import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fastifyPathShapes } from './fastify-path.js';

describe("a Fastify path reads as find-my-way's: literals, parameters and their regular expressions", () => {
  it('keeps a static path as one literal', () => {
    assert.deepEqual(fastifyPathShapes('/hello/world'), [['/hello/world']]);
  });

  it('reads :name as a parameter up to the next slash', () => {
    assert.deepEqual(fastifyPathShapes('/items/:id/tags'), [
      ['/items/', { name: 'id', requirement: undefined }, '/tags'],
    ]);
  });

  it('reads :name(regex) as a parameter with its requirement, anchors dropped', () => {
    assert.deepEqual(fastifyPathShapes('/items/:id(^\\d+$)'), [['/items/', { name: 'id', requirement: '\\d+' }]]);
    assert.deepEqual(fastifyPathShapes('/items/:id(\\d+)'), [['/items/', { name: 'id', requirement: '\\d+' }]]);
  });

  it('finds the regex end past nested and escaped parentheses', () => {
    assert.deepEqual(fastifyPathShapes('/v/:x((?:a|b)\\)+)/y'), [
      ['/v/', { name: 'x', requirement: '(?:a|b)\\)+' }, '/y'],
    ]);
  });

  it('reads several parameters in one segment, split by "-" and "."', () => {
    assert.deepEqual(fastifyPathShapes('/at/:lat-:lng'), [
      ['/at/', { name: 'lat', requirement: undefined }, '-', { name: 'lng', requirement: undefined }],
    ]);
    assert.deepEqual(fastifyPathShapes('/files/:name.:ext'), [
      ['/files/', { name: 'name', requirement: undefined }, '.', { name: 'ext', requirement: undefined }],
    ]);
    assert.deepEqual(fastifyPathShapes('/img/:file(^\\d+).png'), [
      ['/img/', { name: 'file', requirement: '\\d+' }, '.png'],
    ]);
  });

  it('reads "::" as a literal colon', () => {
    assert.deepEqual(fastifyPathShapes('/name::verb'), [['/name:verb']]);
  });

  it('reads a final "*" as a wildcard that takes the rest, slashes included', () => {
    assert.deepEqual(fastifyPathShapes('/static/*'), [['/static/', { name: '*', requirement: '.*' }]]);
  });

  it('reads an optional last parameter as two shapes, with and without it', () => {
    assert.deepEqual(fastifyPathShapes('/posts/:id?'), [
      ['/posts/', { name: 'id', requirement: undefined }],
      ['/posts'],
    ]);
    assert.deepEqual(fastifyPathShapes('/:page?'), [['/', { name: 'page', requirement: undefined }], ['/']]);
  });
});
