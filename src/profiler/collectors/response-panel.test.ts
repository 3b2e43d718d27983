import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResponseSection } from './response.js';
import type { Report } from '../model/report.js';
import { responsePanel } from './response-panel.js';

const report = {} as Report;
const base: ResponseSection = { status: 200, headers: { 'content-type': 'image/png' }, size: 8, aborted: false };

describe('the response panel previews a textual body, or says what the body was', () => {
  it('shows the preview as escaped text', () => {
    const page = responsePanel.render!(
      { ...base, headers: { 'content-type': 'text/html' }, preview: { kind: 'text', text: '<p>hi</p>', size: 9 } },
      report,
      { query: {} },
    ).value;
    assert.match(
      page,
      /<h3>Body \(9 bytes\)<\/h3><pre class="block" id="response-preview">&lt;p&gt;hi&lt;\/p&gt;<\/pre>/,
    );
  });

  it('describes binary, streamed, compressed and empty bodies', () => {
    const says = (preview: ResponseSection['preview']) =>
      responsePanel.render!({ ...base, preview }, report, { query: {} }).value;
    assert.match(says({ kind: 'binary', size: 8 }), /A binary body \(image\/png, 8 bytes\): not shown\./);
    assert.match(says({ kind: 'streamed', size: null }), /A streamed body: not kept\./);
    assert.match(says({ kind: 'compressed', size: 20 }), /A compressed body \(20 bytes\): not shown\./);
    assert.match(says({ kind: 'empty', size: 0 }), /<p class="muted">No body\.<\/p>/);
    assert.match(
      says({ kind: 'error-page', size: 2048 }),
      /The kernel’s error page for the exception \(2 KiB\): see the Exception panel\./,
    );
  });

  it('renders a report written before previews were kept', () => {
    assert.doesNotMatch(responsePanel.render!(base, report, { query: {} }).value, /<h3>Body/);
  });
});
