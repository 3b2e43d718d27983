/** Issue 10, item 8: every stored string is cut at 8 KB with a marker, and a whole report stays under 64 KiB. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Answer, serviceForTests } from '../support/service.js';

/** The largest string value a report may hold: 8,192 characters and the marker. */
const MAX_STRING = 8192 + '…[cut 1,000,000,000 characters]'.length;
/** What a report's sections may take, as JSON in UTF-8. */
const MAX_SECTIONS_BYTES = 64 * 1024;

const service = serviceForTests(() => startInProcess({ ROUTES: 'test/fixtures/bulky-routes.ts' }));

async function storedReport(answer: Answer): Promise<any> {
  const stored = await ask(service(), {
    path: `/_profiler/${answer.headers['x-debug-token']}`,
    headers: { accept: 'application/json' },
  });
  assert.equal(stored.status, 200);
  return JSON.parse(stored.body);
}

/** The sections as the store keeps them: the exception's trace is stored apart, once per throw path. */
function sectionsBytes(report: any): number {
  const { exception } = report.collectors;
  const sections = exception
    ? { ...report.collectors, exception: { ...exception, trace: undefined } }
    : report.collectors;
  return Buffer.byteLength(JSON.stringify(sections));
}

function longestString(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  return Math.max(0, ...Object.values(value).map(longestString));
}

describe('every stored string is cut at 8 KB, with a marker saying how much was cut', () => {
  it('keeps 8,192 characters of a 60 KB URL answered 414, wherever the URL lands', async () => {
    const query = `q=${'a'.repeat(60_000)}`;
    const answer = await ask(service(), { path: `/hello?${query}` });
    assert.equal(answer.status, 414);
    const report = await storedReport(answer);
    const url = `${service().url}/hello?${query}`;
    assert.equal(report.url, `${url.slice(0, 8192)}…[cut ${(url.length - 8192).toLocaleString('en-US')} characters]`);
    assert.equal(report.collectors.request.url, report.url);
    assert.ok(longestString(report) <= MAX_STRING, `longest string: ${longestString(report)}`);
    assert.ok(sectionsBytes(report) <= MAX_SECTIONS_BYTES, `sections: ${sectionsBytes(report)} bytes`);
  });

  it('cuts long log lines too', async () => {
    const report = await storedReport(await ask(service(), { path: '/chatty' }));
    assert.ok(longestString(report) <= MAX_STRING);
  });
});

describe('a whole report stays under 64 KiB of sections, whatever its parts', () => {
  it('bounds a report of 200 long log lines', async () => {
    const report = await storedReport(await ask(service(), { path: '/chatty' }));
    assert.ok(sectionsBytes(report) <= MAX_SECTIONS_BYTES, `sections: ${sectionsBytes(report)} bytes`);
    assert.equal(report.collectors.request.url, `${service().url}/chatty`, 'the small sections are kept whole');
    assert.ok(report.collectors.logs.lines.length > 0 || typeof report.collectors.logs.collectorError === 'string');
  });

  it('bounds a report with 63 KB of headers (answered 431)', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 126; i++) headers[`x-filler-${i}`] = 'h'.repeat(496);
    const answer = await ask(service(), { path: '/hello', headers });
    assert.equal(answer.status, 431);
    const report = await storedReport(answer);
    assert.ok(sectionsBytes(report) <= MAX_SECTIONS_BYTES, `sections: ${sectionsBytes(report)} bytes`);
    assert.equal(report.status, 431);
  });

  it("replaces an application's oversized section with a note, keeping the rest", async () => {
    const report = await storedReport(await ask(service(), { path: '/hello?bulky=1' }));
    assert.ok(sectionsBytes(report) <= MAX_SECTIONS_BYTES, `sections: ${sectionsBytes(report)} bytes`);
    assert.equal(report.collectors.response.status, 200);
    assert.equal(report.collectors.request.url, `${service().url}/hello?bulky=1`);
  });
});
