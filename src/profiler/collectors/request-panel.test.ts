import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestSection } from './request.js';
import type { Report } from '../model/report.js';
import { requestPanel } from './request-panel.js';

const report = {} as Report;
const base: RequestSection = {
  method: 'POST',
  url: 'https://localhost/form',
  query: [],
  headers: {},
  bodySize: 20,
  bodyRead: true,
  ip: '127.0.0.1',
  remoteAddress: '127.0.0.1',
  remotePort: 4000,
  protocol: 'HTTP/1.1',
  tls: null,
};

describe('the request panel shows the parsed body, the cookies and the uploaded files', () => {
  it('draws a body of fields as a table, cookies as name and value, files as a table', () => {
    const page = requestPanel.render!(
      {
        ...base,
        body: { type: 'form', value: { name: 'Ann', colours: ['blue', 'green'] } },
        cookies: [{ name: 'theme', value: '<dark>' }],
        files: [{ field: 'doc', filename: 'a.csv', type: 'text/csv', size: 2048 }],
      },
      report,
      { query: {} },
    ).value;
    assert.match(
      page,
      /<h3>Body \(form\)<\/h3><table class="kv"><tbody><tr><th>name<\/th><td><code>Ann<\/code><\/td><\/tr>/,
    );
    assert.match(
      page,
      /<table class="kv" id="cookies"><tbody><tr><th>theme<\/th><td><code>&lt;dark&gt;<\/code><\/td><\/tr><\/tbody><\/table>/,
    );
    assert.match(
      page,
      /<table id="uploaded-files"><thead><tr><th>Name<\/th><th>Field<\/th><th>Type<\/th><th>Size<\/th><\/tr><\/thead><tbody><tr><td>a\.csv<\/td><td>doc<\/td><td>text\/csv<\/td><td>2 KiB<\/td><\/tr>/,
    );
  });

  it('shows a text body as text, and says when there is no body, cookie or file', () => {
    const text = requestPanel.render!(
      { ...base, body: { type: 'text', value: 'line one\nline two' }, cookies: [], files: [] },
      report,
      { query: {} },
    ).value;
    assert.match(text, /<h3>Body \(text\)<\/h3><pre class="block">line one\nline two<\/pre>/);
    assert.match(text, /<h3>Cookies<\/h3>\n<p class="muted">No cookies<\/p>/);
    const none = requestPanel.render!({ ...base, body: null, cookies: [], files: [] }, report, { query: {} }).value;
    assert.match(none, /<h3>Body<\/h3><p class="muted">No parsed body/);
    assert.doesNotMatch(none, /uploaded-files/);
  });

  it('renders a report written before bodies and cookies were kept', () => {
    const page = requestPanel.render!(base, report, { query: {} }).value;
    assert.match(page, /<h2>Request<\/h2>/);
    assert.doesNotMatch(page, /<h3>Body|<h3>Cookies/);
  });
});
