import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitStyleNonce, insertBeforeBodyEnd, renderToolbar, type ToolbarFacts } from './toolbar.js';

const facts: ToolbarFacts = { status: 200, route: 'GET /page', durationMs: 3.287261999998009, memoryBytes: 85 * 1024 * 1024, logLines: 1, token: 'a1b2c3', link: 'https://localhost:8443/_profiler/a1b2c3' };

describe('renderToolbar', () => {
  it('shows status, route, time, memory, logs and the report link, escaped, with no script', () => {
    const bar = renderToolbar({ ...facts, route: '<b>"x"</b>' }, 'n0nce');
    assert.match(bar, /<span title="Status" class="vt-ok">200<\/span>/);
    assert.match(bar, /<span title="Route">&lt;b&gt;&quot;x&quot;&lt;\/b&gt;<\/span>/);
    assert.match(bar, /<span title="Time until the response was sent">3\.29 ms<\/span>/);
    assert.match(bar, /<span title="Memory of the process \(RSS\)">85\.0 MiB<\/span>/);
    assert.match(bar, /<span title="Log lines">1 log<\/span>/);
    assert.match(bar, /<a href="https:\/\/localhost:8443\/_profiler\/a1b2c3">report a1b2c3<\/a>/);
    assert.match(bar, /<style nonce="n0nce">#vigil-toolbar\{/);
    assert.doesNotMatch(bar, /<script|\bon[a-z]+=|style="/i);
  });
  it('colours the status by class', () => {
    assert.match(renderToolbar({ ...facts, status: 404 }, 'n'), /class="vt-error">404/);
    assert.match(renderToolbar({ ...facts, status: 302 }, 'n'), /class="vt-redirect">302/);
  });
});

describe('insertBeforeBodyEnd', () => {
  it('puts the bar before the last </body>, in any case', () => {
    assert.equal(insertBeforeBodyEnd('<body>a</body><!-- </body> -->', 'X'), '<body>a</body><!-- X</body> -->');
    assert.equal(insertBeforeBodyEnd('<BODY>a</BODY>', 'X'), '<BODY>aX</BODY>');
  });
  it('gives undefined for a page without </body>', () => {
    assert.equal(insertBeforeBodyEnd('<p>fragment</p>', 'X'), undefined);
  });
});

describe('admitStyleNonce lets the bar\'s style through a strict policy without loosening it', () => {
  it('adds the nonce to default-src when it governs styles, dropping a lone \'none\'', () => {
    assert.equal(admitStyleNonce("default-src 'none'", 'N'), "default-src 'nonce-N'");
    assert.equal(admitStyleNonce("default-src 'self'; img-src data:", 'N'), "default-src 'self' 'nonce-N'; img-src data:");
  });
  it('prefers style-src-elem, then style-src', () => {
    assert.equal(admitStyleNonce("default-src 'self'; style-src 'self'", 'N'), "default-src 'self'; style-src 'self' 'nonce-N'");
    assert.equal(admitStyleNonce("style-src 'self'; style-src-elem 'self'", 'N'), "style-src 'self'; style-src-elem 'self' 'nonce-N'");
  });
  it('leaves alone a policy that already admits inline styles, or governs none', () => {
    assert.equal(admitStyleNonce("style-src 'self' 'unsafe-inline'", 'N'), "style-src 'self' 'unsafe-inline'");
    assert.equal(admitStyleNonce("img-src 'self'", 'N'), "img-src 'self'");
  });
  it('adds beside the page\'s own nonce, where \'unsafe-inline\' is already off', () => {
    assert.equal(admitStyleNonce("style-src 'nonce-abc' 'unsafe-inline'", 'N'), "style-src 'nonce-abc' 'unsafe-inline' 'nonce-N'");
  });
});
