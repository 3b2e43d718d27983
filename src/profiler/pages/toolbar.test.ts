import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admitStyleNonce,
  hasPolicyInMarkup,
  insertBeforeBodyEnd,
  renderToolbar,
  type ToolbarFacts,
} from './toolbar.js';

const facts: ToolbarFacts = {
  entries: [
    { label: 'Status', value: '200', tone: 'ok' },
    { label: 'Route', value: 'GET /page' },
    { label: 'Log lines', value: '1 log' },
  ],
  token: 'a1b2c3',
  link: 'https://localhost:8443/_profiler/a1b2c3',
};

describe('renderToolbar', () => {
  it("shows the collectors' entries in order and the report link, escaped, with no script", () => {
    const bar = renderToolbar(
      { ...facts, entries: [...facts.entries, { label: '<i>', value: '<b>"x"</b>' }] },
      'n0nce',
    );
    assert.match(bar, /<span title="Status" class="vt-ok">200<\/span><span title="Route">GET \/page<\/span>/);
    assert.match(bar, /<span title="&lt;i&gt;">&lt;b&gt;&quot;x&quot;&lt;\/b&gt;<\/span>/);
    assert.match(bar, /<span title="Log lines">1 log<\/span>/);
    assert.match(bar, /<a href="https:\/\/localhost:8443\/_profiler\/a1b2c3">report a1b2c3<\/a>/);
    assert.match(bar, /<style nonce="n0nce">#vigil-toolbar\{/);
    assert.doesNotMatch(bar, /<script|\bon[a-z]+=|style="/i);
  });
  it('colours an entry by its tone', () => {
    const entries = [
      { label: 'Status', value: '404', tone: 'error' },
      { label: 'Status', value: '302', tone: 'redirect' },
      { label: 'Queries', value: '6 queries', tone: 'warn' },
    ] as const;
    const bar = renderToolbar({ ...facts, entries }, 'n');
    assert.match(bar, /class="vt-error">404/);
    assert.match(bar, /class="vt-redirect">302/);
    assert.match(bar, /class="vt-warn">6 queries/);
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

describe("admitStyleNonce admits the bar's <style> element through style-src-elem only, never scripts", () => {
  it("adds style-src-elem with the sources of the directive it falls back to (style-src, else default-src), dropping a lone 'none'", () => {
    assert.equal(admitStyleNonce("default-src 'none'", 'N'), "default-src 'none'; style-src-elem 'nonce-N'");
    assert.equal(
      admitStyleNonce("default-src 'self'; img-src data:", 'N'),
      "default-src 'self'; img-src data:; style-src-elem 'self' 'nonce-N'",
    );
    assert.equal(
      admitStyleNonce("default-src 'self'; style-src https://cdn.example", 'N'),
      "default-src 'self'; style-src https://cdn.example; style-src-elem https://cdn.example 'nonce-N'",
    );
  });
  it('adds to style-src-elem where the policy has one', () => {
    assert.equal(
      admitStyleNonce("style-src 'self'; style-src-elem 'self'", 'N'),
      "style-src 'self'; style-src-elem 'self' 'nonce-N'",
    );
    assert.equal(admitStyleNonce("STYLE-SRC-ELEM 'none'", 'N'), "STYLE-SRC-ELEM 'nonce-N'");
  });
  it('never puts the nonce in default-src or script-src, which would admit a script carrying it', () => {
    for (const policy of [
      "default-src 'none'",
      "default-src 'self'; script-src 'self'",
      "script-src 'none'; style-src 'none'",
    ]) {
      const admitted = admitStyleNonce(policy, 'N');
      for (const directive of admitted.split(';')) {
        if (!/^\s*style-src-elem\b/i.test(directive))
          assert.doesNotMatch(directive, /nonce-N/, `${policy} -> ${admitted}`);
      }
    }
  });
  it('leaves alone a policy that already admits inline style elements, or governs none', () => {
    assert.equal(admitStyleNonce("style-src 'self' 'unsafe-inline'", 'N'), "style-src 'self' 'unsafe-inline'");
    assert.equal(admitStyleNonce("default-src 'unsafe-inline'", 'N'), "default-src 'unsafe-inline'");
    assert.equal(admitStyleNonce("img-src 'self'", 'N'), "img-src 'self'");
  });
  it("adds beside the page's own nonce, where 'unsafe-inline' is already off", () => {
    assert.equal(
      admitStyleNonce("style-src 'nonce-abc' 'unsafe-inline'", 'N'),
      "style-src 'nonce-abc' 'unsafe-inline'; style-src-elem 'nonce-abc' 'unsafe-inline' 'nonce-N'",
    );
  });
  it('admits the bar in each policy of a comma-joined list, since each one is enforced', () => {
    assert.equal(
      admitStyleNonce("default-src 'self', style-src 'none'; img-src data:", 'N'),
      "default-src 'self'; style-src-elem 'self' 'nonce-N', style-src 'none'; img-src data:; style-src-elem 'nonce-N'",
    );
    assert.equal(
      admitStyleNonce("img-src 'self', style-src-elem 'self'", 'N'),
      "img-src 'self', style-src-elem 'self' 'nonce-N'",
    );
  });
});

describe('hasPolicyInMarkup: a policy in a <meta> element cannot be given the nonce, so the page gets no bar', () => {
  it('finds <meta http-equiv="Content-Security-Policy">, in any case and quoting', () => {
    assert.equal(
      hasPolicyInMarkup('<head><meta http-equiv="Content-Security-Policy" content="default-src \'none\'"></head>'),
      true,
    );
    assert.equal(hasPolicyInMarkup("<META HTTP-EQUIV='content-security-policy' CONTENT=x>"), true);
    assert.equal(hasPolicyInMarkup('<meta http-equiv=content-security-policy content=x>'), true);
  });
  it('ignores a report-only policy and other meta elements', () => {
    assert.equal(
      hasPolicyInMarkup('<meta http-equiv="Content-Security-Policy-Report-Only" content="x"><meta charset="utf-8">'),
      false,
    );
  });
});
