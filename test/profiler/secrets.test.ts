/** Issue 10, item 5: no secret a client sends reaches a stored report, wherever its URL or headers land; the store is private. */
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, type Service, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startInProcess({ ROUTES: 'examples/demo-routes.ts' }));

const message = (answer: Answer) => decodeURIComponent(String(answer.headers['x-debug-exception']));

/** The stored report of an answer, as the profiler's JSON gives it (raw text and parsed). */
async function storedReport(answer: Answer): Promise<{ text: string; data: any }> {
  const stored = await ask(service(), {
    path: `/_profiler/${answer.headers['x-debug-token']}`,
    headers: { accept: 'application/json' },
  });
  assert.equal(stored.status, 200);
  return { text: stored.body, data: JSON.parse(stored.body) };
}

describe('a redirect keeps its query for the client and redacts it in the report', () => {
  // `authorization` was redacted in the URL before this rule: the Location and the target were not.
  it('redacts the URL, the Location and the redirect target alike', async () => {
    const answer = await ask(service(), { path: '/with-slash?authorization=s3cr3t-redirect&page=2' });
    assert.equal(answer.status, 301);
    assert.equal(
      answer.headers.location,
      '/with-slash/?authorization=s3cr3t-redirect&page=2',
      'the client gets its own query back',
    );
    const { text, data } = await storedReport(answer);
    const redacted = '/with-slash/?authorization=[redacted]&page=2';
    assert.equal(data.url, `${service().url}/with-slash?authorization=[redacted]&page=2`);
    assert.equal(data.collectors.response.headers.location, redacted);
    assert.equal(data.collectors.routing.redirectedTo, redacted);
    assert.doesNotMatch(text, /s3cr3t/);
  });
});

describe("the Referer's query is redacted in the report, never in the answer", () => {
  it('sends the 404 message as is and stores it redacted, in every place it lands', async () => {
    const referer = 'https://app.example/login?user=ann&password=s3cr3t-referer&next=%2Fhome';
    const answer = await ask(service(), { path: '/no-such-page', headers: { referer } });
    assert.equal(answer.status, 404);
    assert.equal(message(answer), `No route found for "GET ${service().url}/no-such-page" (from "${referer}")`);
    assert.match(answer.body, /s3cr3t-referer/, 'the client sees its own message');
    const { text, data } = await storedReport(answer);
    const storedReferer = 'https://app.example/login?user=ann&password=[redacted]&next=%2Fhome';
    assert.equal(data.collectors.request.headers.referer, storedReferer);
    assert.equal(
      data.collectors.exception.message,
      `No route found for "GET ${service().url}/no-such-page" (from "${storedReferer}")`,
    );
    assert.doesNotMatch(text, /s3cr3t/, 'not in the message, the header, nor x-debug-exception');
  });
});

describe('credentials are recognised by their usual names, in the query and in headers', () => {
  it('redacts access_token, api_key, password, X-Api-Key, X-Auth-Token and their kin; keeps the rest', async () => {
    const query =
      'access_token=s3cr3t-1&api_key=s3cr3t-2&password=s3cr3t-3&apiKey=s3cr3t-4&client-secret=s3cr3t-5&sessionid=s3cr3t-6&sig=s3cr3t-7&q=visible&author=ann';
    const answer = await ask(service(), {
      path: `/robots.txt?${query}`,
      headers: {
        'x-api-key': 's3cr3t-8',
        'x-auth-token': 's3cr3t-9',
        'x-csrf-token': 's3cr3t-10',
        'x-hub-signature-256': 's3cr3t-11',
        'x-trace': 'visible',
      },
    });
    const { text, data } = await storedReport(answer);
    const request = data.collectors.request;
    assert.deepEqual(
      request.query.map((p: { name: string; value: string }) => [p.name, p.value]),
      [
        ['access_token', '[redacted]'],
        ['api_key', '[redacted]'],
        ['password', '[redacted]'],
        ['apiKey', '[redacted]'],
        ['client-secret', '[redacted]'],
        ['sessionid', '[redacted]'],
        ['sig', '[redacted]'],
        ['q', 'visible'],
        ['author', 'ann'],
      ],
    );
    for (const name of ['x-api-key', 'x-auth-token', 'x-csrf-token', 'x-hub-signature-256'])
      assert.equal(request.headers[name], '[redacted]', name);
    assert.equal(request.headers['x-trace'], 'visible');
    assert.equal(
      data.collectors.response.headers['x-debug-token'],
      answer.headers['x-debug-token'],
      'the debug token is not a secret',
    );
    assert.doesNotMatch(text, /s3cr3t/);
  });
});

describe('the report store is private to its owner', () => {
  it('creates profiler.sqlite and its -wal and -shm 0600 in a 0700 directory, whatever the umask', async () => {
    const varDir = join(mkdtempSync(join(tmpdir(), 'vigil-mode-')), 'var');
    // The child inherits the umask: with none, only the service's own choice of mode counts.
    const umask = process.umask(0);
    let own: Service;
    try {
      own = await startInProcess({ VAR_DIR: varDir });
    } finally {
      process.umask(umask);
    }
    try {
      await ask(own, { path: '/robots.txt' });
      await ask(own, { path: '/_profiler' }); // the report is written
      assert.equal(statSync(varDir).mode & 0o777, 0o700, 'VAR_DIR');
      for (const file of ['profiler.sqlite', 'profiler.sqlite-wal', 'profiler.sqlite-shm']) {
        assert.equal((statSync(join(varDir, file)).mode & 0o777).toString(8), '600', file);
      }
    } finally {
      await own.stop();
    }
  });
});
