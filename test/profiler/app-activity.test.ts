/**
 * Issue 30 over real sockets: a report holds the application's outgoing HTTP calls (fetch,
 * node:http and node:https, with no set-up) and its database statements (pg through
 * `@opentelemetry/instrumentation-pg` and `vigilSpanProcessor()`), each under the request
 * that made it and no other; outside debug mode nothing subscribes.
 */
// First: the tracing set-up is in place before pg is loaded, as docs/profiler.md says.
import { provider, stopInstrumenting } from '../support/tracing.js';
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, get as httpsGet } from 'node:https';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { reportAsText } from '../../src/cli/report-text.js';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { RECALLS_BETWEEN_CHECKS, TRUST_AFTER } from '../../src/profiler/activity/request-activity.js';
import type { Report } from '../../src/profiler/model/report.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { sharedCertificate } from '../support/certificate.js';
import { startPostgres, type PostgresServer } from '../support/postgres.js';
import { runVigil } from '../support/command-line.js';
import { ask } from '../support/service.js';
import { tokenOf } from '../support/answers.js';

const HTTP_CHANNELS = [
  'undici:request:create',
  'undici:request:headers',
  'undici:request:bodyChunkReceived',
  'undici:request:trailers',
  'undici:request:error',
  'http.client.request.created',
  'http.client.request.start',
  'http.client.response.finish',
  'http.client.request.error',
  'got:request:create',
  'got:request:start',
  'got:request:error',
];

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

interface Call {
  method: string;
  url: string;
  status: number | null;
  duration: number | null;
  responseSize: number | null;
  error: string | null;
  site: string | null;
  siteRecalled?: boolean;
}
interface HttpClientSection {
  calls: Call[];
  omitted: number;
}
interface DatabaseSection {
  texts: string[];
  statements: Array<{
    text: number;
    system: string;
    duration: number | null;
    rows: number | null;
    site: string | null;
    siteLookedUp?: boolean;
    siteRecalled?: boolean;
    error: boolean;
  }>;
  omitted: number;
  slowMs: number;
}

let postgres: PostgresServer;
let roles = 0;
let pool: Pool;
let upstream: Server;
let upstreamUrl: string;
let secureUpstream: Server;
let secureUpstreamUrl: string;
/** Paths the upstreams were asked for, in order. */
const asked: string[] = [];

interface App {
  app: FastifyInstance;
  url: string;
  varDir: string;
  ca: undefined;
  report(token: string): Promise<Report>;
}

function route(app: FastifyInstance): void {
  app.get('/db/three', async () => {
    await pool.query('SELECT 1 AS one');
    await pool.query('SELECT $1::text AS secret_value', ['hunter2-parameter']);
    const { rows } = await pool.query('SELECT generate_series(1, 3) AS n');
    return { rows: rows.length };
  });
  app.get('/db/repeat', async () => {
    for (let i = 0; i < 12; i++) await pool.query('SELECT id FROM generate_series(1, 2) AS id WHERE id = $1', [i]);
    return 'repeated';
  });
  app.get('/db/run-then-other', async () => {
    for (let i = 0; i < 3; i++) await pool.query('SELECT 1 AS one');
    await pool.query('SELECT 2 AS two');
    await pool.query('SELECT 3 AS three');
    return 'run';
  });
  app.get('/db/literal-secrets', async () => {
    const role = `literal_role_${++roles}`;
    await pool.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pg-role-secret-41'`);
    await pool.query(`ALTER ROLE ${role} PASSWORD 'it''s pg-alter-secret-41'`);
    await pool.query(
      "SELECT count(*) FROM (VALUES (1, 'ann', 'pg-values-secret-41')) AS users (id, name, token) WHERE token = 'pg-where-secret-41'",
    );
    await pool.query("SELECT $$pg-dollar-secret-41$$ AS quoted, E'it\\'s pg-escape-secret-41' AS escaped");
    // Values written into the text: one statement, three times.
    for (let i = 1; i <= 3; i++) await pool.query(`SELECT ${i * 7} AS n, 'label-${i}' AS label`);
    return 'ran';
  });
  app.get('/db/slow', async () => {
    await pool.query('SELECT pg_sleep(0.05)');
    return 'slow';
  });
  app.get('/fetch', async (request) => {
    const to = String((request.query as Record<string, string>).to);
    const answer = await fetch(to);
    return { status: answer.status, body: await answer.text() };
  });
  app.get('/recalled', async () => {
    await pool.query('SELECT 4 AS four');
    await (await fetch(`${upstreamUrl}/recalled`)).text();
    return 'recalled';
  });
  app.get('/fetch-error', async (request) => {
    const to = String((request.query as Record<string, string>).to);
    try {
      await fetch(to);
      return 'no error';
    } catch (error) {
      return `failed: ${String((error as Error).cause ?? error)}`;
    }
  });
  app.get('/https-get', async (request) => {
    const to = String((request.query as Record<string, string>).to);
    return new Promise((resolve, reject) => {
      httpsGet(to, { rejectUnauthorized: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      }).on('error', reject);
    });
  });
  app.get('/late', async (request) => {
    const to = String((request.query as Record<string, string>).to);
    // Made from a timer after the response went: no report's.
    setTimeout(
      () =>
        void fetch(to)
          .then((answer) => answer.text())
          .catch(() => undefined),
      50,
    );
    return 'answered';
  });
  app.get('/html', async (_request, reply) => {
    await pool.query('SELECT 1 AS one');
    await fetch(`${upstreamUrl}/for-html`).then((answer) => answer.text());
    return reply.type('text/html; charset=utf-8').send('<!doctype html><html><body><p>page</p></body></html>');
  });
}

async function startApp(env: Record<string, string> = {}): Promise<App> {
  const varDir = mkdtempSync(join(tmpdir(), 'vigil-activity-'));
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: varDir, ...env });
  const app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  route(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    varDir,
    ca: undefined,
    async report(token) {
      const profiler = app.vigil.profiler!;
      await profiler.writer.flush();
      const report = await profiler.store.read(token);
      if (!report) throw new Error(`no report stored under ${token}`);
      return report;
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const answerUpstream = (
  request: { url?: string },
  response: { writeHead(status: number, headers: Record<string, string>): void; end(body: string): void },
) => {
  asked.push(request.url ?? '');
  const body = `upstream ${request.url}`;
  response.writeHead(request.url?.startsWith('/missing') ? 404 : 200, {
    'content-type': 'text/plain',
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
};

before(async () => {
  postgres = await startPostgres();
  pool = new pg.Pool({ connectionString: await postgres.database('activity'), max: 4 });
  // pg's pool.end() resolves before its clients' sockets close: the server's shutdown in `after` can reach one.
  pool.on('error', () => undefined);
  upstream = createHttpServer(answerUpstream);
  upstreamUrl = `http://127.0.0.1:${await listen(upstream)}`;
  const { TLS_KEY, TLS_CERT } = await sharedCertificate();
  secureUpstream = createHttpsServer({ key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) }, answerUpstream);
  secureUpstreamUrl = `https://127.0.0.1:${await listen(secureUpstream)}`;
});
after(async () => {
  await pool?.end();
  await postgres?.close();
  upstream?.close();
  secureUpstream?.close();
  upstream?.closeAllConnections();
  secureUpstream?.closeAllConnections();
  stopInstrumenting();
  await provider.shutdown();
});

describe('the application, seen from a debug report', () => {
  let debug: App;
  before(async () => {
    debug = await startApp({ PROFILER_SLOW_QUERY: '20' });
  });
  after(() => debug.app.close());

  const reportOf = async (path: string) => {
    const answer = await ask(debug, { path });
    assert.equal(answer.status, 200, answer.body);
    return { answer, report: await debug.report(tokenOf(answer)) };
  };
  const calls = (report: Report) => (report.collectors.httpClient as HttpClientSection | undefined)?.calls ?? [];
  const database = (report: Report) => report.collectors.database as DatabaseSection;

  describe('database statements come from the OpenTelemetry spans of the request', () => {
    it("keeps a request's 3 queries with their text, duration and call site, and no parameter value", async () => {
      const { report } = await reportOf('/db/three');
      const section = database(report);
      assert.deepEqual(
        section.statements.map((statement) => section.texts[statement.text]),
        // Literals as ?: the statements as kept.
        ['SELECT ? AS one', 'SELECT $1::text AS secret_value', 'SELECT generate_series(?, ?) AS n'],
      );
      for (const statement of section.statements) {
        assert.equal(statement.system, 'postgresql');
        assert.ok(statement.duration !== null && statement.duration >= 0);
      }
      assert.match(section.statements[0]!.site ?? '', /test\/profiler\/app-activity\.test\.ts:\d+/);
      assert.match((report.collectors.performance as { traceId?: string }).traceId ?? '', /^[0-9a-f]{32}$/);
      assert.doesNotMatch(JSON.stringify(report), /hunter2-parameter/);
      // On the waterfall, as spans of the request.
      const spans = (report.collectors.performance as { spans: Array<{ name: string }> }).spans;
      // Each named by its statement.
      assert.deepEqual(
        spans.filter((span) => span.name.startsWith('SELECT')).map((span) => span.name),
        ['SELECT ? AS one', 'SELECT $1::text AS secret_value', 'SELECT generate_series(?, ?) AS n'],
      );
    });

    it('groups identical statements: 12 runs of one query read "12 identical"', async () => {
      const { report } = await reportOf('/db/repeat');
      assert.equal(database(report).statements.length, 12);
      assert.equal(database(report).texts.length, 1);
      // pg's pool runs each statement from its own callback: the site is still the route's line.
      for (const statement of database(report).statements)
        assert.match(statement.site ?? 'unknown', /test\/profiler\/app-activity\.test\.ts:\d+/);
      const page = (await ask(debug, { path: `/_profiler/${report.token}?panel=database` })).body;
      assert.match(page, /12 identical/);
      // A run of one statement from one line: after the first two, the stack is not looked at again, and the panel says so.
      assert.deepEqual(
        database(report).statements.map((statement) => statement.siteLookedUp !== false),
        [true, true, ...Array<boolean>(10).fill(false)],
      );
      assert.match(page, /as the identical statements before it, not looked up/);
      // A line seen repeating a statement is taken to do so again: the next request looks once.
      const again = database((await reportOf('/db/repeat')).report).statements;
      assert.deepEqual(
        again.map((statement) => statement.siteLookedUp !== false),
        [true, ...Array<boolean>(11).fill(false)],
      );
      for (const statement of again)
        assert.match(statement.site ?? 'unknown', /test\/profiler\/app-activity\.test\.ts:\d+/);
      // Formatted: its text is the statement's, tags aside.
      assert.match(page.replace(/<[^>]+>/g, ''), /SELECT id FROM generate_series\(\?, \?\) AS id WHERE id = \$1/);
      // The report's summary names the trace, to find the request in a tracing backend.
      assert.match(page, /id="summary-performance">Trace [0-9a-f]{32}</);
      assert.match(page, /id="summary-database">12 queries in /);
    });

    it('after a run of identical statements, says which call sites were not looked up', async () => {
      const { report } = await reportOf('/db/run-then-other');
      const section = database(report);
      const shown = section.statements.map((statement) => [
        section.texts[statement.text],
        statement.site === null ? null : 'line',
        statement.siteLookedUp !== false,
      ]);
      assert.deepEqual(shown, [
        ['SELECT ? AS one', 'line', true],
        ['SELECT ? AS one', 'line', true],
        ['SELECT ? AS one', 'line', false],
        // Another statement after the run: its stack was not looked at (the run was expected to go on).
        ['SELECT ? AS two', null, false],
        ['SELECT ? AS three', 'line', true],
      ]);
      const page = (await ask(debug, { path: `/_profiler/${report.token}?panel=database` })).body;
      assert.match(page, /<span class="muted">not looked up<\/span>/);
    });

    it('keeps each statement with its literals replaced by ?, in the store, the panel and profiler:show (issue 41, item 4)', async () => {
      const { report } = await reportOf('/db/literal-secrets');
      const section = database(report);
      assert.deepEqual(
        section.statements.map((statement) => section.texts[statement.text]),
        [
          'CREATE ROLE literal_role_1 LOGIN PASSWORD ?',
          'ALTER ROLE literal_role_1 PASSWORD ?',
          'SELECT count(*) FROM (VALUES (?, ?, ?)) AS users (id, name, token) WHERE token = ?',
          'SELECT ? AS quoted, ? AS escaped',
          ...Array<string>(3).fill('SELECT ? AS n, ? AS label'),
        ],
      );
      const page = (await ask(debug, { path: `/_profiler/${report.token}?panel=database` })).body;
      // Statements that differ only by their values are one statement.
      assert.match(page, /3 identical/);
      const shown = await runVigil(['profiler:show', report.token], { VAR_DIR: debug.varDir });
      assert.equal(shown.code, 0, shown.stderr);
      for (const [where, text] of [
        ['the store', JSON.stringify(report)],
        ['the panel', page],
        ['profiler:show', shown.stdout],
      ] as const) {
        assert.doesNotMatch(text, /secret-41|label-\d/, where);
      }
    });

    it('flags a statement slower than PROFILER_SLOW_QUERY', async () => {
      const { report } = await reportOf('/db/slow');
      assert.equal(database(report).slowMs, 20);
      const page = (await ask(debug, { path: `/_profiler/${report.token}?panel=database` })).body;
      assert.match(page, /class="slow"/);
    });
  });

  describe('outgoing HTTP calls are recorded with no set-up', () => {
    it('keeps a fetch with its method, URL (secrets redacted), status, duration, size and call site', async () => {
      const { report } = await reportOf(`/fetch?to=${encodeURIComponent(`${upstreamUrl}/items?page=2&token=abc123`)}`);
      const [call, ...others] = calls(report);
      assert.equal(others.length, 0);
      assert.equal(call!.method, 'GET');
      assert.equal(call!.url, `${upstreamUrl}/items?page=2&token=[redacted]`);
      assert.equal(call!.status, 200);
      assert.ok(call!.duration !== null && call!.duration >= 0);
      assert.equal(call!.responseSize, Buffer.byteLength('upstream /items?page=2&token=abc123'));
      assert.match(call!.site ?? '', /test\/profiler\/app-activity\.test\.ts:\d+/);
      assert.doesNotMatch(JSON.stringify(report), /abc123/);
    });

    it(`recalls a route's call sites once ${TRUST_AFTER} requests found them, says so, and looks again after ${RECALLS_BETWEEN_CHECKS}`, async () => {
      const seen: string[] = [];
      let site: string | null | undefined;
      for (let i = 0; i < TRUST_AFTER + RECALLS_BETWEEN_CHECKS + 1; i++) {
        const { report } = await reportOf('/recalled');
        const [call] = calls(report);
        const [statement] = database(report).statements;
        site ??= call!.site;
        assert.match(site ?? '', /test\/profiler\/app-activity\.test\.ts:\d+/);
        assert.equal(call!.site, site);
        assert.match(statement!.site ?? '', /test\/profiler\/app-activity\.test\.ts:\d+/);
        assert.equal(call!.siteRecalled === true, statement!.siteRecalled === true);
        seen.push(call!.siteRecalled ? 'recalled' : 'looked up');
        if (call!.siteRecalled)
          assert.match(reportAsText(report), /\(as on earlier requests to this route, not looked up\)/);
      }
      assert.deepEqual(seen, [
        ...Array(TRUST_AFTER).fill('looked up'),
        ...Array(RECALLS_BETWEEN_CHECKS).fill('recalled'),
        'looked up',
      ]);
    });

    it('keeps an https.get with its status and duration', async () => {
      const { report } = await reportOf(`/https-get?to=${encodeURIComponent(`${secureUpstreamUrl}/missing/one`)}`);
      const [call] = calls(report);
      assert.equal(call!.method, 'GET');
      assert.equal(call!.url, `${secureUpstreamUrl}/missing/one`);
      assert.equal(call!.status, 404);
      assert.ok(call!.duration !== null && call!.duration >= 0);
    });

    it('keeps a call to a closed port with its error', async () => {
      const port = await closedPort();
      const { report } = await reportOf(`/fetch-error?to=${encodeURIComponent(`http://127.0.0.1:${port}/nobody`)}`);
      const [call] = calls(report);
      assert.equal(call!.status, null);
      assert.match(call!.error ?? '', /ECONNREFUSED/);
    });

    it('files each of 50 concurrent calls under the request that made it, and no other', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          ask(debug, { path: `/fetch?to=${encodeURIComponent(`${upstreamUrl}/own/${i}`)}` }),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        const held = calls(await debug.report(tokenOf(answer))).map((call) => call.url);
        assert.deepEqual(held, [`${upstreamUrl}/own/${i}`]);
      }
    });

    it('does not file a call made from a timer after the response under any report', async () => {
      const { report } = await reportOf(`/late?to=${encodeURIComponent(`${upstreamUrl}/late-call`)}`);
      for (let i = 0; i < 50 && !asked.includes('/late-call'); i++) await sleep(20);
      assert.ok(asked.includes('/late-call'), 'the timer made its call');
      const next = await reportOf(`/fetch?to=${encodeURIComponent(`${upstreamUrl}/after-late`)}`);
      assert.deepEqual(calls(report), []);
      assert.deepEqual(
        calls(next.report).map((call) => call.url),
        [`${upstreamUrl}/after-late`],
      );
    });

    it('shows the calls in the HTTP client panel, on the waterfall and in the summary', async () => {
      const { report } = await reportOf(`/fetch?to=${encodeURIComponent(`${upstreamUrl}/paneled`)}`);
      const panel = (await ask(debug, { path: `/_profiler/${report.token}?panel=httpClient` })).body;
      assert.match(panel, /<h2>HTTP client<\/h2>/);
      assert.match(panel, /\/paneled/);
      const timeline = (await ask(debug, { path: `/_profiler/${report.token}?panel=performance` })).body;
      assert.match(timeline, /<tr class="call[^"]*" data-name="GET [^"]*\/paneled"/);
      assert.match(panel, /id="summary-httpClient"[^>]*>1 HTTP call/);
    });

    it('shows the queries and the calls in the toolbar', async () => {
      const answer = await ask(debug, { path: '/html' });
      assert.match(answer.body, /title="Database queries"[^>]*>1 query in /);
      assert.match(answer.body, /title="HTTP calls"[^>]*>1 call in /);
    });
  });

  describe('vigil profiler:show prints the HTTP calls and the statements', () => {
    it('prints the Database section with its "12 identical" group and each statement\'s line', async () => {
      const { report } = await reportOf('/db/repeat');
      const text = reportAsText(report);
      assert.match(
        text,
        /\nDatabase\n  12 queries in [\d.]+ ms\n    12 identical: SELECT id FROM generate_series\(\?, \?\) AS id WHERE id = \$1\n/,
      );
      assert.match(
        text,
        /\n    [\d.]+ ms, [01] rows? SELECT id FROM generate_series\(\?, \?\) AS id WHERE id = \$1 {2}test\/profiler\/app-activity\.test\.ts:\d+\n/,
      );
      assert.doesNotMatch(text, /"texts"/);
    });

    it('prints the HTTP client section, and both sections with --json', async () => {
      const { report } = await reportOf(`/fetch?to=${encodeURIComponent(`${upstreamUrl}/for-cli?token=abc123`)}`);
      const text = reportAsText(report);
      assert.match(
        text,
        new RegExp(
          // Earlier tests asked /fetch: its line may be recalled.
          `\\nHTTP client\\n  1 HTTP call in [\\d.]+ ms\\n    GET ${upstreamUrl}/for-cli\\?token=\\[redacted\\] 200 [\\d.]+ ms {2}test/profiler/app-activity\\.test\\.ts:\\d+( \\(as on earlier requests to this route, not looked up\\))?\\n`,
        ),
      );
      const shown = await runVigil(['profiler:show', report.token, '--json'], { VAR_DIR: debug.varDir });
      assert.equal(shown.code, 0, shown.stderr);
      const json = JSON.parse(shown.stdout) as Report;
      assert.equal(calls(json)[0]!.url, `${upstreamUrl}/for-cli?token=[redacted]`);
      const repeated = await reportOf('/db/repeat');
      const shownDb = JSON.parse(
        (await runVigil(['profiler:show', repeated.report.token, '--json'], { VAR_DIR: debug.varDir })).stdout,
      ) as Report;
      assert.equal(database(shownDb).statements.length, 12);
    });
  });

  describe('in Chromium: the Database and HTTP client panels, and the toolbar badge', () => {
    it('draws the panels and the badge, marked when a statement repeats', async (t) => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const repeat = await ask(debug, { path: '/db/repeat' });
        await page.goto(`${debug.url}/_profiler/${tokenOf(repeat)}?panel=database`);
        assert.equal(await page.locator('#identical-statements td').first().textContent(), '12 identical');
        assert.equal(await page.locator('#statements tbody tr').count(), 12);
        assert.match((await page.locator('a[href$="panel=database"] .count').textContent()) ?? '', /^12 in /);
        await page.screenshot({ path: screenshotPath('profiler-database-panel.png'), fullPage: true });
        t.diagnostic(`screenshot: ${screenshotPath('profiler-database-panel.png')}`);

        const fetched = await ask(debug, { path: `/fetch?to=${encodeURIComponent(`${upstreamUrl}/in-browser`)}` });
        await page.goto(`${debug.url}/_profiler/${tokenOf(fetched)}?panel=httpClient`);
        assert.match(
          (await page.locator('#http-calls tbody tr').first().textContent()) ?? '',
          /GET.*\/in-browser.*200/,
        );
        await page.screenshot({ path: screenshotPath('profiler-http-client-panel.png'), fullPage: true });
        await page.goto(`${debug.url}/_profiler/${tokenOf(fetched)}?panel=performance`);
        const bar = await page.locator('#timeline tr.call .bar').boundingBox();
        assert.ok(bar && bar.width > 0, 'the call is drawn on the waterfall');

        await page.goto(`${debug.url}/html`);
        const toolbar = page.locator('#vigil-toolbar');
        assert.match((await toolbar.locator('[title="Database queries"]').textContent()) ?? '', /^1 query in /);
        assert.match((await toolbar.locator('[title="HTTP calls"]').textContent()) ?? '', /^1 call in /);
        await toolbar.screenshot({ path: screenshotPath('toolbar-activity.png') });
      } finally {
        await browser.close();
      }
    });
  });
});

describe('a plugin is a guest: nothing subscribes outside debug mode, and closing unsubscribes', () => {
  it('registers no subscriber in production mode', async () => {
    const original = globalThis.fetch;
    const production = await startApp({ APP_ENV: 'prod' });
    try {
      for (const name of HTTP_CHANNELS) assert.equal(diagnosticsChannel.hasSubscribers(name), false, name);
      assert.equal(globalThis.fetch, original, 'fetch is left as it is');
    } finally {
      await production.app.close();
    }
  });

  it('subscribes with the first debug instance and lets go when the last closes', async () => {
    const original = globalThis.fetch;
    const [one, two] = [await startApp(), await startApp()];
    for (const name of HTTP_CHANNELS) assert.equal(diagnosticsChannel.hasSubscribers(name), true, name);
    await one.app.close();
    assert.equal(diagnosticsChannel.hasSubscribers('undici:request:create'), true);
    await two.app.close();
    for (const name of HTTP_CHANNELS) assert.equal(diagnosticsChannel.hasSubscribers(name), false, name);
    assert.equal(globalThis.fetch, original, 'the global fetch is given back');
  });

  it('leaves a fetch wrapped after its own in place, passing calls through once closed', async () => {
    const original = globalThis.fetch;
    const debugApp = await startApp();
    const seen: string[] = [];
    const theirs: typeof fetch = (...args) => {
      seen.push(String(args[0]));
      return wrappedByVigil(...args);
    };
    const wrappedByVigil = globalThis.fetch;
    globalThis.fetch = theirs;
    try {
      await debugApp.app.close();
      assert.equal(globalThis.fetch, theirs, "another library's wrapper is not taken away");
      const answer = await fetch(`${upstreamUrl}/after-close`);
      assert.equal(answer.status, 200);
      await answer.text();
      assert.deepEqual(seen, [`${upstreamUrl}/after-close`]);
    } finally {
      globalThis.fetch = original;
    }
  });
});
