/** CONTRACT section 2: routing outcomes, against the real service with the demo routes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from 'node:tls';
import { startInProcess } from '../support/in-process-service.js';
import { ask, serviceForTests } from '../support/service.js';
import { debugMessage } from '../support/answers.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts' }));

describe('a path without a route is a 404 "No route found"', () => {
  it("answers the seed's own request", async () => {
    const answer = await ask(service(), {
      path: '/robots.txt',
      headers: { accept: '*/*', 'accept-encoding': 'gzip, br, zstd, deflate', 'user-agent': 'seed/1.0' },
    });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(
      answer.headers['x-debug-exception'],
      `No%20route%20found%20for%20%22GET%20https%3A%2F%2Flocalhost%3A${service().port}%2Frobots.txt%22`,
    );
    assert.match(answer.body, /<title>Error 404 Not Found<\/title>/);
  });

  it('appends the Referer as (from "<referer>")', async () => {
    const answer = await ask(service(), { path: '/nowhere', headers: { referer: 'https://example.com/page?x=1' } });
    assert.equal(
      debugMessage(answer),
      `No route found for "GET ${service().url}/nowhere" (from "https://example.com/page?x=1")`,
    );
  });

  it('leaves the query string out of the message', async () => {
    const answer = await ask(service(), { path: '/robots.txt?debug=1&page=2' });
    assert.equal(debugMessage(answer), `No route found for "GET ${service().url}/robots.txt"`);
  });

  it('keeps the percent-encoding the client sent', async () => {
    const answer = await ask(service(), { path: '/caf%C3%A9/a%20b' });
    assert.equal(debugMessage(answer), `No route found for "GET ${service().url}/caf%C3%A9/a%20b"`);
  });

  it('is a 404, not 401 or 403, without credentials, and sets no cookie even when sent one', async () => {
    const answer = await ask(service(), { path: '/admin', headers: { cookie: 'PHPSESSID=abc; session=1' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['set-cookie'], undefined);
  });

  it('is a 404 when a parameter fails its requirement', async () => {
    const answer = await ask(service(), { method: 'PUT', path: '/items/abc' });
    assert.equal(answer.status, 404);
    assert.equal(debugMessage(answer), `No route found for "PUT ${service().url}/items/abc"`);
  });
});

describe('a path with a route but another method is a 405 with Allow', () => {
  it('lists the allowed methods in declaration order', async () => {
    const answer = await ask(service(), {
      method: 'DELETE',
      path: '/items',
      headers: { referer: 'https://example.com/' },
    });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, POST');
    assert.equal(
      debugMessage(answer),
      `No route found for "DELETE ${service().url}/items": Method Not Allowed (Allow: GET, POST)`,
    );
  });

  it('does not add HEAD to Allow', async () => {
    const answer = await ask(service(), { method: 'POST', path: '/hello' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
  });

  it('answers GET on a PUT-only route with Allow: PUT', async () => {
    const answer = await ask(service(), { path: '/items/42' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'PUT');
  });

  it('treats OPTIONS without Origin as any other method', async () => {
    const answer = await ask(service(), { method: 'OPTIONS', path: '/hello' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
  });
});

describe('declared routes answer', () => {
  it('GET /hello answers hello', async () => {
    const answer = await ask(service(), { path: '/hello' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'hello');
  });

  it('PUT /items/{id} answers item <id> for digits', async () => {
    const answer = await ask(service(), { method: 'PUT', path: '/items/42' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'item 42');
  });

  it('GET and POST /items both answer', async () => {
    assert.equal((await ask(service(), { path: '/items' })).status, 200);
    assert.equal(
      (
        await ask(service(), {
          method: 'POST',
          path: '/items',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
      200,
    );
  });
});

describe('HEAD is served by GET routes', () => {
  it('answers HEAD /hello with the GET status and no body', async () => {
    const answer = await ask(service(), { method: 'HEAD', path: '/hello' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, '');
  });

  it('answers HEAD on an unrouted path with the same status and headers as GET, without a body', async () => {
    const head = await ask(service(), { method: 'HEAD', path: '/robots.txt' });
    const get = await ask(service(), { path: '/robots.txt' });
    assert.equal(head.status, 404);
    assert.equal(head.body, '');
    for (const name of ['content-type', 'cache-control', 'vary']) assert.equal(head.headers[name], get.headers[name]);
    assert.equal(debugMessage(head), `No route found for "HEAD ${service().url}/robots.txt"`);
    assert.match(String(head.headers['x-debug-token']), /^[0-9a-f]{6}$/);
  });
});

describe('a trailing slash mismatch on GET or HEAD is a 301 to the other form', () => {
  it('adds the slash, keeping the query string, in a Location that is a path', async () => {
    const answer = await ask(service(), { path: '/with-slash?a=1&b=2' });
    assert.equal(answer.status, 301);
    assert.equal(answer.headers.location, '/with-slash/?a=1&b=2');
  });

  it('is never stored by a cache: the route table it was decided from may change', async () => {
    const answer = await ask(service(), { path: '/with-slash' });
    assert.equal(answer.status, 301);
    assert.equal(answer.headers['cache-control'], 'no-store');
  });

  it("is not built from the client's Host", async () => {
    const answer = await ask(service(), { path: '/with-slash', headers: { host: `evil.example:${service().port}` } });
    assert.ok(
      answer.status === 400 || answer.headers.location === '/with-slash/',
      `${answer.status} ${String(answer.headers.location)}`,
    );
  });

  it('removes the slash when only the slash-less route exists', async () => {
    const answer = await ask(service(), { method: 'HEAD', path: '/hello/' });
    assert.equal(answer.status, 301);
    assert.equal(answer.headers.location, '/hello');
  });

  it('does not redirect other methods', async () => {
    const answer = await ask(service(), { method: 'POST', path: '/with-slash' });
    assert.equal(answer.status, 404);
  });
});

describe('unrouted requests are answered without reading their body', () => {
  it('answers a 150 MB POST to /robots.txt before the upload is done', async () => {
    const total = 150 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const result = await new Promise<{ statusLine: string; sent: number }>((resolvePromise, reject) => {
      const socket = connect(
        { host: 'localhost', port: service().port, ca: service().ca, servername: 'localhost' },
        () => {
          socket.write(
            `POST /robots.txt HTTP/1.1\r\nHost: localhost:${service().port}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`,
          );
          const pump = () => {
            while (sent < total && !answered) {
              sent += chunk.length;
              if (!socket.write(chunk)) return void socket.once('drain', pump);
            }
          };
          pump();
        },
      );
      let sent = 0;
      let answered = false;
      let received = '';
      socket.on('data', (data: Buffer) => {
        received += data.toString('latin1');
        if (!answered && received.includes('\r\n')) {
          answered = true;
          resolvePromise({ statusLine: received.split('\r\n')[0]!, sent });
          socket.destroy();
        }
      });
      socket.on('error', (error) => (answered ? undefined : reject(error)));
    });
    assert.equal(result.statusLine, 'HTTP/1.1 404 Not Found');
    assert.ok(result.sent < total, `the answer came after ${result.sent} of ${total} bytes`);
  });
});
