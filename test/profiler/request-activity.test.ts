/**
 * Issue 15, items 2 and 3 over real sockets: a report holds what the request did (console
 * and app-logger lines, the parsed body, cookies and uploads, a preview of the response)
 * and the application's own spans beside the kernel's stages.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ask, startService, type Answer, serviceForTests } from '../support/service.js';

const service = serviceForTests(() => startService({ ROUTES: 'test/fixtures/activity-routes.ts', LOG_LEVEL: 'info' }));

interface LogLine {
  logger: string;
  level: string;
  message: string;
}
interface Report {
  collectors: {
    logs: { lines: LogLine[]; omitted: number };
    request: {
      body: { type: string; value: unknown } | null;
      cookies: Array<{ name: string; value: string }>;
      files: Array<Record<string, unknown>>;
    };
    response: { preview: { kind: string; text?: string; size: number | null } };
    performance: {
      spans: Array<{ name: string; start: number; duration: number | null; depth: number; error: boolean }>;
      spansOmitted: number;
      stages: Record<string, number>;
    };
  };
}

async function reportOf(answer: Answer): Promise<{ report: Report; json: string; token: string }> {
  const token = String(answer.headers['x-debug-token']);
  const json = (await ask(service(), { path: `/_profiler/${token}`, headers: { accept: 'application/json' } })).body;
  return { report: JSON.parse(json) as Report, json, token };
}

describe('console and app-logger lines written while a request runs are kept in its report, with the logger that wrote them', () => {
  it('keeps console.log, the request logger, the app logger and console.error after an await, in order', async () => {
    const { report } = await reportOf(await ask(service(), { path: '/console?tag=solo' }));
    assert.deepEqual(
      report.collectors.logs.lines.map((line) => [line.logger, line.level, line.message]),
      [
        ['console.log', 'info', 'plain solo { n: 1 }'],
        ['request', 'info', 'request line solo'],
        ['app', 'warn', 'app line solo'],
        ['console.error', 'error', 'after await solo'],
      ],
    );
    // They still reach the real output.
    assert.match(service().output(), /plain solo \{ n: 1 \}/);
    assert.match(service().output(), /after await solo/);
  });

  it('never files a line under another request running at the same time', async () => {
    const [slow, fast] = await Promise.all([
      ask(service(), { path: '/console?tag=slow&wait=60' }),
      ask(service(), { path: '/console?tag=fast&wait=0' }),
    ]);
    for (const [answer, tag] of [
      [slow, 'slow'],
      [fast, 'fast'],
    ] as const) {
      const messages = (await reportOf(answer)).report.collectors.logs.lines.map((line) => line.message);
      assert.equal(messages.length, 4, messages.join(' | '));
      for (const message of messages) assert.ok(message.includes(tag), `${tag} report holds "${message}"`);
    }
  });

  it('keeps at most 200 lines per request and counts the rest', async () => {
    const { report } = await reportOf(await ask(service(), { path: '/console-loop?times=250' }));
    assert.equal(report.collectors.logs.lines.length, 200);
    assert.equal(report.collectors.logs.omitted, 50);
    assert.equal(report.collectors.logs.lines[199]!.message, 'line 199');
  });

  it('shows the logger of each line in the logs panel', async () => {
    const { token } = await reportOf(await ask(service(), { path: '/console?tag=page' }));
    const page = (await ask(service(), { path: `/_profiler/${token}?panel=logs` })).body;
    assert.match(page, /<th>Logger<\/th>/);
    assert.match(page, /<td>console\.log<\/td>/);
    assert.match(page, /<td>app<\/td>/);
  });
});

describe('the request panel shows the parsed body, the cookies and the uploaded files, redacted', () => {
  it('keeps a JSON body with credential-like members redacted', async () => {
    const body = JSON.stringify({
      user: 'ann',
      password: 'hunter2',
      profile: { apiKey: 'k-123', city: 'Lyon' },
      tags: ['a', 'b'],
    });
    const { report, json } = await reportOf(
      await ask(service(), { method: 'POST', path: '/form', headers: { 'content-type': 'application/json' }, body }),
    );
    assert.deepEqual(report.collectors.request.body, {
      type: 'json',
      value: { user: 'ann', password: '[redacted]', profile: { apiKey: '[redacted]', city: 'Lyon' }, tags: ['a', 'b'] },
    });
    assert.ok(!json.includes('hunter2') && !json.includes('k-123'));
  });

  it('keeps form fields, and the cookies one by one, redacted by name', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/form',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: 'theme=dark; sid=s3cr3t-sid; remember_token=r3m; lang="fr"',
      },
      body: 'name=Ann&access_token=t0k3n&colour=blue&colour=green',
    });
    const { report, json } = await reportOf(answer);
    assert.deepEqual(report.collectors.request.body, {
      type: 'form',
      value: { name: 'Ann', access_token: '[redacted]', colour: ['blue', 'green'] },
    });
    assert.deepEqual(report.collectors.request.cookies, [
      { name: 'theme', value: 'dark' },
      { name: 'sid', value: '[redacted]' },
      { name: 'remember_token', value: '[redacted]' },
      { name: 'lang', value: 'fr' },
    ]);
    for (const secret of ['t0k3n', 's3cr3t-sid', 'r3m']) assert.ok(!json.includes(secret), `${secret} is not stored`);
  });

  it('lists uploaded files by name, field, type and size, never their contents', async () => {
    const boundary = 'activity-boundary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nQuarterly\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\npa55word\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="q3.csv"\r\nContent-Type: text/csv\r\n\r\nTOP-SECRET-CONTENT\r\n` +
      `--${boundary}--\r\n`;
    const answer = await ask(service(), {
      method: 'POST',
      path: '/form',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    assert.equal(answer.status, 200);
    const { report, json, token } = await reportOf(answer);
    assert.deepEqual(report.collectors.request.files, [
      { field: 'report', filename: 'q3.csv', type: 'text/csv', size: 18 },
    ]);
    assert.deepEqual(report.collectors.request.body, {
      type: 'multipart',
      value: { title: 'Quarterly', password: '[redacted]' },
    });
    assert.ok(!json.includes('TOP-SECRET-CONTENT') && !json.includes('pa55word'));
    const page = (await ask(service(), { path: `/_profiler/${token}?panel=request` })).body;
    assert.match(
      page,
      /<table id="uploaded-files">.*<td>q3\.csv<\/td><td>report<\/td><td>text\/csv<\/td><td>18 bytes<\/td>/s,
    );
    assert.match(page, /<h3>Body \(multipart\)<\/h3>/);
  });

  it('cuts a long body value as every string of a report is cut', async () => {
    const body = JSON.stringify({ essay: 'w'.repeat(20_000) });
    const { report } = await reportOf(
      await ask(service(), { method: 'POST', path: '/form', headers: { 'content-type': 'application/json' }, body }),
    );
    const essay = (report.collectors.request.body!.value as { essay: string }).essay;
    assert.match(essay, /^w+…\[cut [\d,]+ characters\]$/);
    assert.ok(essay.length < 9000);
  });

  it('shows the body, the cookies and the files on the page', async () => {
    const answer = await ask(service(), {
      method: 'POST',
      path: '/form',
      headers: { 'content-type': 'application/json', cookie: 'theme=dark' },
      body: '{"city":"Lyon"}',
    });
    const { token } = await reportOf(answer);
    const page = (await ask(service(), { path: `/_profiler/${token}?panel=request` })).body;
    assert.match(page, /<h3>Body \(json\)<\/h3>.*<th>city<\/th><td><code>Lyon<\/code><\/td>/s);
    assert.match(page, /<table class="kv" id="cookies"><tbody><tr><th>theme<\/th><td><code>dark<\/code><\/td><\/tr>/);
  });
});

describe('the response panel previews a textual body up to 4 KiB, redacted; other bodies say what they are', () => {
  it('previews a JSON body with credential-like members redacted', async () => {
    const { report, json } = await reportOf(await ask(service(), { path: '/json-secret' }));
    const preview = report.collectors.response.preview;
    assert.equal(preview.kind, 'text');
    assert.deepEqual(JSON.parse(preview.text!), {
      user: 'ann',
      password: '[redacted]',
      nested: { apiKey: '[redacted]', shown: 'yes' },
    });
    assert.ok(!json.includes('hunter2') && !json.includes('k-123'));
  });

  it('cuts a long text at 4 KiB and says how much was cut', async () => {
    const { report, token } = await reportOf(await ask(service(), { path: '/big-text' }));
    const preview = report.collectors.response.preview;
    assert.equal(preview.size, 10_003);
    assert.match(preview.text!, /^a{4096}…\[cut 5,907 characters\]$/);
    const page = (await ask(service(), { path: `/_profiler/${token}?panel=response` })).body;
    assert.match(page, /<pre class="block" id="response-preview">a{4096}…\[cut 5,907 characters\]<\/pre>/);
  });

  it('says a binary body or a streamed one is not shown', async () => {
    const binary = await reportOf(await ask(service(), { path: '/binary' }));
    assert.deepEqual(binary.report.collectors.response.preview, { kind: 'binary', size: 8 });
    const streamed = await reportOf(await ask(service(), { path: '/stream' }));
    assert.deepEqual(streamed.report.collectors.response.preview, { kind: 'streamed', size: null });
    const page = (await ask(service(), { path: `/_profiler/${binary.token}?panel=response` })).body;
    assert.match(page, /A binary body \(image\/png, 8 bytes\): not shown\./);
  });
});

describe("the kernel's error page is not copied into the report", () => {
  it('says the body was the error page of the exception, and keeps none of it', async () => {
    const answer = await ask(service(), { path: '/nowhere' });
    assert.equal(answer.status, 404);
    const { report, token } = await reportOf(answer);
    assert.deepEqual(report.collectors.response.preview, { kind: 'error-page', size: Buffer.byteLength(answer.body) });
    const page = (await ask(service(), { path: `/_profiler/${token}?panel=response` })).body;
    assert.match(page, /The kernel’s error page for the exception \([\d.]+ KiB\): see the Exception panel\./);
  });
});

describe("the handler's span() records the application's steps, nested, in the report", () => {
  it('keeps each span with its start, duration and depth, errors flagged, in the order they began', async () => {
    const answer = await ask(service(), { path: '/spans' });
    assert.equal(answer.body, 'spanned');
    const { performance } = (await reportOf(answer)).report.collectors;
    assert.deepEqual(
      performance.spans.map((span) => [span.name, span.depth, span.error]),
      [
        ['load user', 0, false],
        ['render', 0, false],
        ['template', 1, false],
        ['partial', 2, false],
        ['quick', 1, false],
        ['failing', 0, true],
        ['rejected', 0, true],
        ['answer', 0, false],
      ],
    );
    const byName = Object.fromEntries(performance.spans.map((span) => [span.name, span]));
    assert.ok(byName['load user']!.duration! >= 12);
    assert.ok(byName.template!.duration! >= 14);
    assert.ok(byName.render!.start <= byName.template!.start && byName.template!.start <= byName.partial!.start);
    assert.ok(byName.render!.duration! >= byName.template!.duration!);
    assert.equal(performance.spansOmitted, 0);
  });

  it('keeps at most 256 spans and counts the rest', async () => {
    const { performance } = (await reportOf(await ask(service(), { path: '/spans-many?times=300' }))).report.collectors;
    assert.equal(performance.spans.length, 256);
    assert.equal(performance.spansOmitted, 44);
  });

  it('draws stages and spans as one waterfall, and the threshold hides the short spans', async () => {
    const { token } = await reportOf(await ask(service(), { path: '/spans' }));
    const all = (await ask(service(), { path: `/_profiler/${token}?panel=performance` })).body;
    assert.match(all, /<table id="timeline">/);
    for (const name of ['routing', 'handler', 'load user', 'template', 'partial', 'quick'])
      assert.match(all, new RegExp(`data-name="${name}"`));
    const filtered = (await ask(service(), { path: `/_profiler/${token}?panel=performance&threshold=10` })).body;
    for (const name of ['load user', 'render', 'template']) assert.match(filtered, new RegExp(`data-name="${name}"`));
    for (const name of ['partial', 'quick', 'answer']) assert.doesNotMatch(filtered, new RegExp(`data-name="${name}"`));
    assert.match(filtered, /<input[^>]* name="threshold"[^>]* value="10"/);
  });
});
