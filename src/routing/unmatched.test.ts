import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MethodNotAllowedHttpError, NotFoundHttpError } from '../errors/http-errors.js';
import { RouteMatcher } from './route-matcher.js';
import { Routes } from './routes.js';
import { noRouteFound, resolveUnmatched, type UnmatchedOutcome, type UnmatchedRequest } from './unmatched.js';

const answer = () => 'ok';
const ORIGIN = 'https://localhost:8443';

/** The demo application's table. */
const matcher = new RouteMatcher(
  new Routes()
    .get('/hello', answer)
    .get('/items', answer)
    .post('/items', answer)
    .put('/items/{id}', answer, { requirements: { id: '\\d+' } })
    .get('/with-slash/', answer)
    .post('/form', answer)
    .get('/', answer).definitions,
);

/** What the kernel decides for `method` on `target` (path and query as sent). */
function outcome(method: string, target: string, referer?: string): UnmatchedOutcome {
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  const query = mark === -1 ? '' : target.slice(mark);
  const request: UnmatchedRequest = { method, path, query, url: ORIGIN + path, referer };
  return resolveUnmatched(matcher, request);
}

/** The error of an outcome, failing when it is a redirect. */
function errorOf(result: UnmatchedOutcome): NotFoundHttpError | MethodNotAllowedHttpError {
  assert.ok(
    'error' in result,
    `expected an error, got a redirect to ${'redirectTo' in result ? result.redirectTo : ''}`,
  );
  return result.error;
}

describe('a path no route has is a 404 "No route found for "<METHOD> <URL>""', () => {
  it('names the method and the URL without its query', () => {
    const error = errorOf(outcome('GET', '/robots.txt?debug=1&page=2'));
    assert.ok(error instanceof NotFoundHttpError);
    assert.deepEqual(
      [error.status, error.code, error.message],
      [404, 'VIGIL_ERR_NOT_FOUND', 'No route found for "GET https://localhost:8443/robots.txt"'],
    );
  });
  it('appends (from "<referer>") when a Referer is sent', () => {
    assert.equal(
      errorOf(outcome('POST', '/nowhere', 'https://example.com/page?x=1')).message,
      'No route found for "POST https://localhost:8443/nowhere" (from "https://example.com/page?x=1")',
    );
  });
  it('appends an empty Referer as sent', () => {
    assert.equal(
      errorOf(outcome('GET', '/nowhere', '')).message,
      'No route found for "GET https://localhost:8443/nowhere" (from "")',
    );
  });
  it('keeps the percent-encoding the client sent', () => {
    assert.equal(
      errorOf(outcome('GET', '/caf%C3%A9/a%20b')).message,
      'No route found for "GET https://localhost:8443/caf%C3%A9/a%20b"',
    );
  });
  it('is a 404 when a parameter fails its requirement, whatever the method', () => {
    const error = errorOf(outcome('PUT', '/items/abc'));
    assert.deepEqual([error.status, error.message], [404, 'No route found for "PUT https://localhost:8443/items/abc"']);
    assert.equal(errorOf(outcome('GET', '/items/abc')).status, 404);
  });
  it('carries no Allow header', () => {
    assert.deepEqual(errorOf(outcome('GET', '/nowhere')).headers, {});
  });
  it('is built the same way for a request the kernel answers as unrouted', () => {
    const error = noRouteFound({ method: 'GET', url: 'https://localhost/_profiler', referer: 'https://localhost/' });
    assert.ok(error instanceof NotFoundHttpError);
    assert.equal(error.message, 'No route found for "GET https://localhost/_profiler" (from "https://localhost/")');
  });
});

describe('a path with routes but not for the method is a 405 with Allow in declaration order', () => {
  it('lists the methods in the Allow header and the message, without the referer', () => {
    const error = errorOf(outcome('DELETE', '/items', 'https://example.com/'));
    assert.ok(error instanceof MethodNotAllowedHttpError);
    assert.deepEqual([error.status, error.code], [405, 'VIGIL_ERR_METHOD_NOT_ALLOWED']);
    assert.deepEqual(error.headers, { allow: 'GET, POST' });
    assert.deepEqual(error.allowedMethods, ['GET', 'POST']);
    assert.equal(
      error.message,
      'No route found for "DELETE https://localhost:8443/items": Method Not Allowed (Allow: GET, POST)',
    );
  });
  it('follows the order of declaration, not the alphabet', () => {
    const reversed = new RouteMatcher(new Routes().post('/items', answer).get('/items', answer).definitions);
    const result = resolveUnmatched(reversed, {
      method: 'PATCH',
      path: '/items',
      query: '',
      url: `${ORIGIN}/items`,
      referer: undefined,
    });
    assert.deepEqual(errorOf(result).headers, { allow: 'POST, GET' });
  });
  it('does not add HEAD to Allow', () => {
    assert.deepEqual(errorOf(outcome('POST', '/hello')).headers, { allow: 'GET' });
  });
  it('answers GET on a PUT-only route with Allow: PUT', () => {
    const error = errorOf(outcome('GET', '/items/42'));
    assert.deepEqual([error.status, error.headers], [405, { allow: 'PUT' }]);
  });
  it('answers HEAD on a route without GET with a 405', () => {
    const error = errorOf(outcome('HEAD', '/form'));
    assert.deepEqual([error.status, error.headers], [405, { allow: 'POST' }]);
    assert.equal(
      error.message,
      'No route found for "HEAD https://localhost:8443/form": Method Not Allowed (Allow: POST)',
    );
  });
  it('treats OPTIONS as any other method', () => {
    assert.deepEqual(errorOf(outcome('OPTIONS', '/hello')).headers, { allow: 'GET' });
  });
});

describe('HEAD is served by GET routes', () => {
  it('is not a 405 where GET is allowed: a route answers it, so the honest miss is a 404', () => {
    const error = errorOf(outcome('HEAD', '/hello'));
    assert.deepEqual([error.status, error.message], [404, 'No route found for "HEAD https://localhost:8443/hello"']);
  });
});

describe("a trailing-slash mismatch on GET or HEAD is a 301 to the form a GET route has, as a path (never the client's Host)", () => {
  it('adds the slash, keeping the query string', () => {
    assert.deepEqual(outcome('GET', '/with-slash?a=1&b=2'), { redirectTo: '/with-slash/?a=1&b=2' });
  });
  it('percent-encodes in the target what a URI may not hold, keeping escapes as sent', () => {
    assert.deepEqual(outcome('GET', '/with-slash?q=<vgl-1>&r=%3C"'), {
      redirectTo: '/with-slash/?q=%3Cvgl-1%3E&r=%3C%22',
    });
  });
  it('removes the slash when only the slash-less route exists', () => {
    assert.deepEqual(outcome('HEAD', '/hello/'), { redirectTo: '/hello' });
  });
  it('redirects to the twin even when the path itself has routes for other methods', () => {
    const both = new RouteMatcher(new Routes().post('/a/', answer).get('/a', answer).definitions);
    const result = resolveUnmatched(both, {
      method: 'GET',
      path: '/a/',
      query: '',
      url: 'http://example.test/a/',
      referer: undefined,
    });
    assert.deepEqual(result, { redirectTo: '/a' });
  });
  it('does not redirect other methods', () => {
    assert.equal(errorOf(outcome('POST', '/with-slash')).status, 404);
    assert.equal(errorOf(outcome('DELETE', '/hello/')).status, 404);
  });
  it('does not redirect to a twin that has no GET route', () => {
    assert.equal(errorOf(outcome('GET', '/form/')).status, 404);
  });
  it('redirects only between one slash and none', () => {
    assert.equal(errorOf(outcome('GET', '/hello//')).status, 404);
  });
  it('keeps the percent-encoding of the path it redirects', () => {
    const encoded = new RouteMatcher(new Routes().get('/café', answer).definitions);
    const result = resolveUnmatched(encoded, {
      method: 'GET',
      path: '/caf%C3%A9/',
      query: '?q=%20',
      url: `${ORIGIN}/caf%C3%A9/`,
      referer: undefined,
    });
    assert.deepEqual(result, { redirectTo: '/caf%C3%A9?q=%20' });
  });
  it('never redirects a path starting with // or /\\, which a browser would read as another host', () => {
    const addsSlash = new RouteMatcher(
      new Routes().get('/{rest}/', answer, { requirements: { rest: '.+' } }).definitions,
    );
    const dropsSlash = new RouteMatcher(
      new Routes().get('/{rest}', answer, { requirements: { rest: '.*[^/]' } }).definitions,
    );
    for (const [matcherOf, path] of [
      [addsSlash, '//evil.example'],
      [addsSlash, '/\\evil.example'],
      [dropsSlash, '//evil.example/'],
      [dropsSlash, '/\\evil.example/'],
    ] as const) {
      const result = resolveUnmatched(matcherOf, {
        method: 'GET',
        path,
        query: '',
        url: ORIGIN + path,
        referer: undefined,
      });
      assert.ok('error' in result && result.error.status === 404, `${path} -> ${JSON.stringify(result)}`);
    }
    // The same routes still redirect an ordinary path (a parameter takes one segment).
    assert.deepEqual(
      resolveUnmatched(addsSlash, { method: 'GET', path: '/a', query: '', url: `${ORIGIN}/a`, referer: undefined }),
      { redirectTo: '/a/' },
    );
    assert.deepEqual(
      resolveUnmatched(dropsSlash, { method: 'GET', path: '/a/', query: '', url: `${ORIGIN}/a/`, referer: undefined }),
      { redirectTo: '/a' },
    );
  });
});
