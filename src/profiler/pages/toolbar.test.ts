import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admitScriptNonce,
  admitStyleNonce,
  hasPolicyInMarkup,
  insertBeforeBodyEnd,
  insertBeforeHeadEnd,
  renderRecorder,
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
  it("shows the collectors' entries in order and the report link, escaped", () => {
    const bar = renderToolbar(
      { ...facts, entries: [...facts.entries, { label: '<i>', value: '<b>"x"</b>' }] },
      'n0nce',
    );
    assert.match(bar, /title="Status" aria-expanded="false" aria-controls="vt-panel-0">200<\/button>/);
    assert.match(bar, /title="Route" aria-expanded="false" aria-controls="vt-panel-1">GET \/page<\/button>/);
    assert.match(bar, /title="&lt;i&gt;" [^>]*>&lt;b&gt;&quot;x&quot;&lt;\/b&gt;<\/button>/);
    assert.ok(bar.indexOf('>200<') < bar.indexOf('>GET /page<') && bar.indexOf('>GET /page<') < bar.indexOf('>1 log<'));
    assert.match(bar, /<a class="vt-report" href="https:\/\/localhost:8443\/_profiler\/a1b2c3">report a1b2c3<\/a>/);
    assert.doesNotMatch(
      bar,
      /\bon[a-z]+=|style="/i,
      'no inline handler or style attribute, which a nonce cannot admit',
    );
  });
  it('colours an entry by its tone', () => {
    const entries = [
      { label: 'Status', value: '404', tone: 'error' },
      { label: 'Status', value: '302', tone: 'redirect' },
      { label: 'Queries', value: '6 queries', tone: 'warn' },
    ] as const;
    const bar = renderToolbar({ ...facts, entries }, 'n');
    assert.match(bar, /class="vt-tab vt-error"[^>]*>404/);
    assert.match(bar, /class="vt-tab vt-redirect"[^>]*>302/);
    assert.match(bar, /class="vt-tab vt-warn"[^>]*>6 queries/);
  });
  it('gives each entry a panel with its detail rows and the link to its panel of the report', () => {
    const bar = renderToolbar(
      {
        ...facts,
        entries: [
          {
            label: 'Database queries',
            value: '3 queries in 2 ms',
            detail: [['Ran 3 times', 'SELECT * FROM "t" WHERE a < 1']],
            panel: { name: 'database', title: 'Database' },
          },
        ],
      },
      'n',
    );
    assert.match(
      bar,
      /<div class="vt-panel" id="vt-panel-0" role="group" aria-label="Database queries"><b>Database queries<\/b><table><tr><th>Ran 3 times<\/th><td>SELECT \* FROM &quot;t&quot; WHERE a &lt; 1<\/td><\/tr><\/table>/,
    );
    assert.match(
      bar,
      /<a href="https:\/\/localhost:8443\/_profiler\/a1b2c3\?panel=database">Database panel of the report<\/a>/,
    );
  });
  it('carries its style and its script with the nonce, and the requests item empty and hidden', () => {
    const bar = renderToolbar(facts, 'n0nce');
    assert.match(bar, /<style nonce="n0nce">#vigil-toolbar\{/);
    assert.match(bar, /<script nonce="n0nce">\(function\(\)\{"use strict";/);
    assert.equal(bar.match(/<script/g)?.length, 1);
    assert.match(bar, /<div class="vt-item vt-requests" hidden>/);
    assert.equal(bar.match(/<\/script/gi)?.length, 1, 'nothing in the script closes it early');
  });
});

describe('renderRecorder and insertBeforeHeadEnd', () => {
  it('puts the recorder with the nonce before the first </head>, in any case', () => {
    const recorder = renderRecorder('n0nce');
    assert.match(
      recorder,
      /^<script nonce="n0nce">\(function\(\)\{"use strict";[\s\S]*installRecorder\(\);\}\)\(\);<\/script>$/,
    );
    assert.equal(
      insertBeforeHeadEnd('<HEAD><title>a</title></HEAD><body></body>', 'R'),
      '<HEAD><title>a</title>R</HEAD><body></body>',
    );
  });
  it('leaves a page without </head> as it is (the script after the bar records then)', () => {
    assert.equal(insertBeforeHeadEnd('<p>no head</p></body>', 'R'), '<p>no head</p></body>');
  });
  it("never puts it in the page's own text: a </head> inside a script, a comment, a title", () => {
    for (const page of [
      '<head><script>const doc = "<head></head>";</script></head><body></body>',
      '<head><!-- the </head> is below --></head>',
      '<head><title>About </head></title></head>',
      '<head><STYLE>/* </head> */</STYLE></head>',
    ])
      assert.equal(insertBeforeHeadEnd(page, 'R'), page);
    assert.equal(
      insertBeforeHeadEnd('<head><script src="/a.js"></script><!-- x --><title>t</title></head>', 'R'),
      '<head><script src="/a.js"></script><!-- x --><title>t</title>R</head>',
    );
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

describe("admitScriptNonce admits the bar's <script> elements through script-src-elem only", () => {
  it('adds script-src-elem with the sources of script-src, else default-src', () => {
    assert.equal(admitScriptNonce("default-src 'none'", 'N'), "default-src 'none'; script-src-elem 'nonce-N'");
    assert.equal(
      admitScriptNonce("default-src 'self'; script-src 'nonce-page' 'strict-dynamic'", 'N'),
      "default-src 'self'; script-src 'nonce-page' 'strict-dynamic'; script-src-elem 'nonce-page' 'strict-dynamic' 'nonce-N'",
    );
    assert.equal(admitScriptNonce("script-src-elem 'self'", 'N'), "script-src-elem 'self' 'nonce-N'");
  });
  it("leaves alone a policy that admits inline scripts by 'unsafe-inline' alone, or governs no script", () => {
    assert.equal(admitScriptNonce("script-src 'unsafe-inline'", 'N'), "script-src 'unsafe-inline'");
    assert.equal(admitScriptNonce("style-src 'self'", 'N'), "style-src 'self'");
  });
  it("adds where 'strict-dynamic' already turns 'unsafe-inline' off", () => {
    assert.equal(
      admitScriptNonce("script-src 'strict-dynamic' 'unsafe-inline'", 'N'),
      "script-src 'strict-dynamic' 'unsafe-inline'; script-src-elem 'strict-dynamic' 'unsafe-inline' 'nonce-N'",
    );
  });
  it('never touches style-src or default-src', () => {
    const admitted = admitScriptNonce("default-src 'self'; style-src 'none'", 'N');
    assert.equal(admitted, "default-src 'self'; style-src 'none'; script-src-elem 'self' 'nonce-N'");
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
