/**
 * Issue 15, item 1, over real sockets: the cause chain and AggregateError members on every
 * debug format and in the stored report, folded kernel frames, editor links (VIGIL_IDE),
 * thrown values that point at their handler, and production showing none of it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { debugMessage, exceptionFile, lineOf, tokenOf } from '../support/answers.js';
import { startInProcess } from '../support/in-process-service.js';
import { startTogether } from '../support/start-together.js';
import { ask, ROOT, type Answer, type Service } from '../support/service.js';

const DEMO = join(ROOT, 'examples/demo-routes.ts');
const FIXTURE = join(ROOT, 'test/fixtures/exception-routes.ts');

let service: Service;
let production: Service;
before(async () => {
  [service, production] = await startTogether<[Service, Service]>(
    [
      startInProcess({ ROUTES: 'test/fixtures/exception-routes.ts', VIGIL_IDE: 'vscode' }),
      startInProcess({ ROUTES: 'test/fixtures/exception-routes.ts', VIGIL_IDE: 'vscode', APP_ENV: 'prod' }),
    ],
    (started) => started.stop(),
  );
});
after(() => Promise.all([service?.stop(), production?.stop()]));

const json = (path: string) => ask(service, { path, headers: { accept: 'application/json' } });

async function storedReport(answer: Answer): Promise<{ collectors: { exception: Record<string, any> } }> {
  const stored = await ask(service, { path: `/_profiler/${tokenOf(answer)}`, headers: { accept: 'application/json' } });
  assert.equal(stored.status, 200);
  return JSON.parse(stored.body);
}

describe('the cause chain is on the debug page, in problem+json and problem+xml', () => {
  it('nests each cause with its class, message, file and line in JSON', async () => {
    const answer = await json('/demo/cause');
    assert.equal(answer.status, 500);
    const { exception } = JSON.parse(answer.body);
    assert.equal(exception.message, 'The orders could not be loaded');
    assert.deepEqual(exception.cause, {
      class: 'TypeError',
      message: 'The database client could not connect to db.internal',
      file: DEMO,
      line: lineOf(DEMO, 'throw new TypeError(`The database client'),
      cause: {
        class: 'Error',
        message: 'connect ECONNREFUSED db.internal:5432',
        file: DEMO,
        line: lineOf(DEMO, 'const refused = new Error('),
      },
    });
  });

  it('writes the same chain in XML', async () => {
    const answer = await ask(service, { path: '/demo/cause', headers: { accept: 'application/xml' } });
    assert.ok(
      answer.body.includes(
        `<cause><class>TypeError</class><message>The database client could not connect to db.internal</message><file>${DEMO}</file><line>${lineOf(DEMO, 'throw new TypeError(`The database client')}</line>` +
          '<cause><class>Error</class><message>connect ECONNREFUSED db.internal:5432</message>',
      ),
      answer.body,
    );
  });

  it('shows each cause on the page, with its raise site linked to the editor', async () => {
    const answer = await ask(service, { path: '/demo/cause' });
    const line = lineOf(DEMO, 'throw new TypeError(`The database client');
    assert.ok(
      answer.body.includes(
        '<h2>Caused by <code>TypeError</code></h2><p class="message">The database client could not connect to db.internal</p>',
      ),
      answer.body,
    );
    assert.ok(
      answer.body.includes(
        `<p class="site">Raised at <a class="file" href="vscode://file/${DEMO}:${line}">${DEMO}:${line}</a></p>`,
      ),
    );
    assert.ok(
      answer.body.includes(
        '<h2>Caused by <code>Error</code></h2><p class="message">connect ECONNREFUSED db.internal:5432</p>',
      ),
    );
  });

  it('escapes a cause message in HTML and XML and keeps it exact in JSON', async () => {
    const page = await ask(service, { path: '/cause-markup' });
    assert.ok(!page.body.includes('<script>alert(1)'));
    assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'));
    const xml = await ask(service, { path: '/cause-markup', headers: { accept: 'application/xml' } });
    assert.ok(
      !xml.body.includes('<script>') &&
        xml.body.includes('<message>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;</message>'),
    );
    assert.equal(
      JSON.parse((await json('/cause-markup')).body).exception.cause.message,
      '<script>alert(1)</script> & "quotes"',
    );
  });
});

describe("an AggregateError's members are listed", () => {
  it('gives each member with its class, message and raise site', async () => {
    const { exception } = JSON.parse((await json('/demo/aggregate')).body);
    assert.equal(exception.class, 'AggregateError');
    const line = lineOf(DEMO, 'throw new RangeError(`The ${source} price source timed out`)');
    assert.deepEqual(exception.errors, [
      { class: 'RangeError', message: 'The primary price source timed out', file: DEMO, line },
      { class: 'RangeError', message: 'The fallback price source timed out', file: DEMO, line },
    ]);
    const page = await ask(service, { path: '/demo/aggregate' });
    assert.ok(
      page.body.includes(
        '<h2>Error 1 of 2 <code>RangeError</code></h2><p class="message">The primary price source timed out</p>',
      ),
      page.body,
    );
    assert.ok(page.body.includes('<h2>Error 2 of 2 <code>RangeError</code></h2>'));
  });
});

describe('hostile causes never break the error response', () => {
  it('stops at a cause that points back', async () => {
    const { exception } = JSON.parse((await json('/cause-cycle')).body);
    assert.deepEqual(
      [exception.message, exception.cause.message, exception.cause.cause.message, exception.cause.cause.repeated],
      ['first', 'second', 'first', true],
    );
    assert.equal(exception.cause.cause.cause, undefined);
    assert.ok((await ask(service, { path: '/cause-cycle' })).body.includes('Shown above already: not followed again.'));
  });

  it('answers through the pipeline when reading the cause throws', async () => {
    const answer = await json('/cause-hostile');
    assert.equal(answer.status, 500);
    const { exception } = JSON.parse(answer.body);
    assert.equal(exception.message, 'hostile cause');
    assert.equal(exception.cause.class, 'unreadable');
    assert.match(exception.cause.message, /the cause getter threw/);
  });

  it('cuts a huge cause message everywhere', async () => {
    const answer = await ask(service, { path: '/cause-huge' });
    assert.equal(answer.status, 500);
    assert.ok(!answer.body.includes('&lt;end&gt;'));
    assert.ok(answer.body.includes(`${'m'.repeat(2000)}…</p>`));
    assert.ok(Buffer.byteLength(answer.body) < 60_000, `${Buffer.byteLength(answer.body)} bytes`);
    const { exception } = JSON.parse((await json('/cause-huge')).body);
    assert.equal(exception.cause.message.length, 2001);
  });

  it('describes a cause that is not an Error', async () => {
    const { exception } = JSON.parse((await json('/cause-value')).body);
    assert.deepEqual(exception.cause, {
      class: 'object',
      message: "{ code: 'E_NOPE', detail: '<b>no</b>' }",
      file: null,
      line: null,
    });
    assert.ok(
      (await ask(service, { path: '/cause-value' })).body.includes(
        '{ code: &#39;E_NOPE&#39;, detail: &#39;&lt;b&gt;no&lt;/b&gt;&#39; }',
      ),
    );
  });
});

describe('a thrown value that is not an Error points at the handler that threw it', () => {
  it("names the route's declaration in x-debug-exception-file and on the page", async () => {
    const answer = await ask(service, { path: '/demo/throw-string' });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), 'Non-error thrown: the string "a string, not an Error"');
    const line = lineOf(DEMO, "routes.get('/demo/throw-string'");
    assert.deepEqual(exceptionFile(answer), { file: DEMO, line });
    assert.ok(
      answer.body.includes(
        `<dt>Raised at</dt><dd><a class="file" href="vscode://file/${DEMO}:${line}">${DEMO}:${line}</a></dd>`,
      ),
      answer.body,
    );
    assert.ok(!answer.body.includes('http-errors.ts'));
  });

  it('does the same after an await, and for objects and undefined', async () => {
    for (const [path, message] of [
      ['/throw-string-later', 'Non-error thrown: the string "late string"'],
      ['/throw-object', 'Non-error thrown: an object { code: 42 }'],
      ['/throw-undefined', 'Non-error thrown: undefined'],
    ] as const) {
      const answer = await ask(service, { path });
      assert.equal(debugMessage(answer), message, path);
      assert.deepEqual(exceptionFile(answer), { file: FIXTURE, line: lineOf(FIXTURE, `routes.get('${path}'`) }, path);
    }
  });

  it('answers a value that cannot become a string through the error pipeline', async () => {
    const answer = await json('/throw-null-prototype');
    assert.equal(answer.status, 500);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.equal(JSON.parse(answer.body).exception.message, 'Non-error thrown: an object [Object: null prototype] {}');
  });

  it('points at the declaration of an isolated route too', async () => {
    const answer = await ask(service, { path: '/isolated-throw-string' });
    assert.equal(answer.status, 500);
    assert.equal(debugMessage(answer), 'Non-error thrown: the string "isolated string"');
    // The declaring call starts the line above its path.
    assert.deepEqual(exceptionFile(answer), { file: FIXTURE, line: lineOf(FIXTURE, "'/isolated-throw-string'") - 1 });
  });

  it("carries an isolated handler's cause chain across", async () => {
    const { exception } = JSON.parse((await json('/isolated-cause')).body);
    assert.equal(exception.message, 'isolated outer');
    assert.deepEqual(
      [exception.cause.class, exception.cause.message, exception.cause.file],
      ['RangeError', 'isolated inner', FIXTURE],
    );
  });
});

describe("the trace folds the kernel's and dependencies' frames and drops frames without a position", () => {
  it("keeps the handler's frame in view, the others in closed <details>", async () => {
    const answer = await ask(service, { path: '/demo/cause' });
    const trace = answer.body.slice(
      answer.body.indexOf('<h2>Stack trace</h2>'),
      answer.body.indexOf('<section class="related">'),
    );
    assert.ok(
      trace.startsWith('<h2>Stack trace</h2><ol class="trace"><li class="app"><details open>'),
      trace.slice(0, 200),
    );
    // Node's own frames may come first in the fold: a continuation run from a timer under load has some.
    assert.match(
      trace,
      /<li class="folded"><details><summary>(\d+ frames? outside the project, )?\d+ vigil frames?(, \d+ node_modules frames?)?/,
    );
    assert.ok(!/<li class="folded"><details open>/.test(trace));
    assert.ok(!answer.body.includes('new Promise'), 'no frame without a position');
    assert.ok(!/:0<\/(span|a)>/.test(answer.body));
  });

  it('links project frames only, and never a dependency', async () => {
    const answer = await ask(service, { path: '/demo/cause' });
    const links = [...answer.body.matchAll(/<a class="file" href="([^"]*)">/g)].map((match) => match[1]!);
    assert.ok(links.length > 0);
    for (const link of links) {
      assert.ok(link.startsWith(`vscode://file/${ROOT}/`), link);
      assert.ok(!link.includes('node_modules'), link);
    }
  });
});

describe('the stored report and its panel carry the chain', () => {
  it('stores each cause with class, message, site and its own frames', async () => {
    const answer = await ask(service, { path: '/demo/cause' });
    const { exception } = (await storedReport(answer)).collectors;
    assert.equal(exception.cause.class, 'TypeError');
    assert.equal(exception.cause.file, DEMO);
    assert.equal(exception.cause.line, lineOf(DEMO, 'throw new TypeError(`The database client'));
    assert.equal(exception.cause.cause.message, 'connect ECONNREFUSED db.internal:5432');
    assert.equal(exception.cause.trace[0].function, 'connect');
    assert.equal(exception.cause.trace[0].origin, 'app');
    assert.ok(exception.cause.trace[0].link.startsWith('vscode://file/'));
    assert.ok(exception.trace.some((frame: { origin: string }) => frame.origin === 'kernel'));
  });

  it('redacts secrets in a cause message before storing it, as in every other text', async () => {
    const answer = await ask(service, { path: '/cause-secret' });
    const stored = await ask(service, {
      path: `/_profiler/${tokenOf(answer)}`,
      headers: { accept: 'application/json' },
    });
    assert.ok(!stored.body.includes('s3cr3t-k3y'), 'the key is not stored');
    assert.equal(
      JSON.parse(stored.body).collectors.exception.cause.message,
      'GET https://api.example.com/orders?api_key=[redacted]&page=2 answered 401',
    );
  });

  it('stores the members of an AggregateError', async () => {
    const { exception } = (await storedReport(await ask(service, { path: '/demo/aggregate' }))).collectors;
    assert.deepEqual(
      exception.errors.map((member: { message: string }) => member.message),
      ['The primary price source timed out', 'The fallback price source timed out'],
    );
  });

  it('shows the chain in the exception panel, escaped', async () => {
    const answer = await ask(service, { path: '/cause-markup' });
    const panel = await ask(service, { path: `/_profiler/${tokenOf(answer)}?panel=exception` });
    assert.ok(panel.body.includes('<h3>Caused by <code>TypeError</code></h3>'), panel.body);
    assert.ok(panel.body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'));
    assert.ok(!panel.body.includes('<script>alert(1)'));
    assert.ok(panel.body.includes('<li class="folded"><details><summary>'));
  });
});

describe('production shows nothing of causes, members or thrown values', () => {
  it('keeps every format to the status', async () => {
    for (const path of ['/demo/cause', '/demo/aggregate', '/demo/throw-string', '/cause-markup']) {
      for (const accept of ['text/html', 'application/json', 'application/xml', 'text/plain']) {
        const answer = await ask(production, { path, headers: { accept } });
        assert.equal(answer.status, 500);
        for (const secret of [
          'cause',
          'Caused',
          'TypeError',
          'RangeError',
          'database',
          'price',
          'string',
          'vscode:',
          'demo-routes',
        ]) {
          assert.ok(!answer.body.includes(secret), `${path} ${accept} shows "${secret}"`);
        }
        assert.deepEqual(
          Object.keys(answer.headers).filter((name) => name.startsWith('x-debug')),
          [],
        );
      }
    }
  });
});
