import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { projectRoot } from '../debug/project-root.js';
import type { StackFrame } from '../debug/stack-trace.js';
import { loadConfig } from '../config/index.js';
import type { ChainedError } from './error-chain.js';
import type { ErrorView } from './error-view.js';
import { escapeHtml, html, raw } from '../utils/html.js';
import { renderDebugHtml, renderProductionHtml } from './render-html.js';
import { escapeXml, renderProblemJson, renderProblemXml } from './render-problem.js';
import { renderText } from './render-text.js';

// Frames outside the project's source: the HTML page shows them without reading any file.
const vendorFrame: StackFrame = {
  function: 'Router.lookup',
  file: '/srv/app/node_modules/find-my-way/index.js',
  line: 412,
  column: 9,
};
const internalFrame: StackFrame = {
  function: '<anonymous>',
  file: 'node:internal/process/task_queues',
  line: 95,
  column: 5,
};

/** A debug 404 whose request carries markup in its path, query and Referer. */
function hostileView(overrides: Partial<ErrorView> = {}): ErrorView {
  return {
    status: 404,
    title: 'Not Found',
    message: 'No route found for "GET https://localhost:8443/<script>alert(1)</script>" (from "x\' onload=\'y")',
    className: 'NotFoundHttpError',
    code: 'VIGIL_ERR_NOT_FOUND',
    method: 'GET',
    url: 'https://localhost:8443/<script>alert(1)</script>?a=<b>&c="d"',
    frames: [vendorFrame, internalFrame],
    site: vendorFrame,
    token: 'a1b2c3',
    reportUrl: 'https://localhost:8443/_profiler/a1b2c3',
    ...overrides,
  };
}

/** A plain view with nothing to escape, for byte-exact formats. */
function plainView(overrides: Partial<ErrorView> = {}): ErrorView {
  return hostileView({
    message: 'No route found for "GET https://localhost:8443/x"',
    url: 'https://localhost:8443/x?q=1',
    frames: [vendorFrame],
    site: vendorFrame,
    ...overrides,
  });
}

describe('the html tag escapes every interpolated value unless it is SafeHtml', () => {
  it('escapes the five markup characters', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&amp;</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    assert.equal(escapeHtml('plain text'), 'plain text');
  });
  it('escapes strings, numbers and array items, and leaves out null, undefined and false', () => {
    const page = html`<p title="${'"><x>'}">${['<a>', 1, null, undefined, false]}${true}</p>`;
    assert.equal(page.value, '<p title="&quot;&gt;&lt;x&gt;">&lt;a&gt;1true</p>');
  });
  it('inserts SafeHtml and raw markup as they are', () => {
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p>${inner}${raw('<br>')}</p>`.value, '<p><b>&lt;i&gt;</b><br></p>');
    assert.equal(String(inner), '<b>&lt;i&gt;</b>');
  });
});

describe('the debug HTML page names the status, the message, the request, the exception and the report', () => {
  const page = renderDebugHtml(plainView());

  it('titles and heads the page with the status code and reason phrase', () => {
    assert.ok(page.startsWith('<!DOCTYPE html>\n<html lang="en">'), page.slice(0, 40));
    assert.ok(page.includes('<title>Error 404 Not Found</title>'));
    assert.ok(page.includes('<h1>Error 404 Not Found</h1>'));
  });
  it('shows the message, the method and full URL with its query, and the exception class and code', () => {
    assert.ok(page.includes('<p class="message">No route found for &quot;GET https://localhost:8443/x&quot;</p>'));
    assert.ok(page.includes('<dt>Request</dt><dd><code>GET https://localhost:8443/x?q=1</code></dd>'));
    assert.ok(page.includes('<dt>Exception</dt><dd><code>NotFoundHttpError</code> (VIGIL_ERR_NOT_FOUND)</dd>'));
  });
  it('links the stored report when there is one, and only then', () => {
    assert.ok(page.includes('<a href="https://localhost:8443/_profiler/a1b2c3">View the debug report a1b2c3</a>'));
    const unlinked = renderDebugHtml(plainView({ frames: [vendorFrame], token: undefined, reportUrl: undefined }));
    assert.ok(!unlinked.includes('Debug report'));
    assert.ok(!unlinked.includes('_profiler'));
  });
  it('lists every frame of the trace with its function, file and line, folding those not of the application', () => {
    const traced = renderDebugHtml(plainView({ frames: [vendorFrame, internalFrame] }));
    assert.ok(
      traced.includes(
        '<h2>Stack trace</h2><ol class="trace">' +
          '<li class="folded"><details><summary>1 node_modules frame, 1 frame outside the project</summary><ol class="trace">' +
          '<li class="vendor"><details><summary><code>Router.lookup</code> <span class="file">/srv/app/node_modules/find-my-way/index.js:412</span></summary></details></li>' +
          '<li class="external"><details><summary><code>&lt;anonymous&gt;</code> <span class="file">node:internal/process/task_queues:95</span></summary></details></li>' +
          '</ol></details></li></ol>',
      ),
      traced,
    );
  });
});

describe("the debug HTML page shows source excerpts of the project's own frames, escaped", () => {
  // Excerpts are read only from files under the project's root.
  mkdirSync(join(projectRoot(), 'var'), { recursive: true });
  const dir = mkdtempSync(join(projectRoot(), 'var', 'render-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'handler.ts');
  writeFileSync(
    file,
    ['// one', 'const a = 1;', 'if (a < 2 && "x") throw new Error(\'<b>\');', 'export {};', '// five'].join('\n'),
  );

  it('opens the frame and marks the line that raised the error', () => {
    const own: StackFrame = { function: 'handler', file, line: 3, column: 1 };
    const page = renderDebugHtml(plainView({ frames: [own], site: own }));
    assert.ok(
      page.includes(
        `<li class="app"><details open><summary><code>handler</code> <span class="file">${file}:3</span></summary><pre><code>` +
          '<span class=""><i>1</i>// one</span>' +
          '<span class=""><i>2</i>const a = 1;</span>' +
          '<span class="hl"><i>3</i>if (a &lt; 2 &amp;&amp; &quot;x&quot;) throw new Error(&#39;&lt;b&gt;&#39;);</span>' +
          '<span class=""><i>4</i>export {};</span>' +
          '<span class=""><i>5</i>// five</span>' +
          '</code></pre></details></li>',
      ),
      page,
    );
  });
  it('keeps only the first three frames open', () => {
    const frames = [1, 2, 3, 4].map((line): StackFrame => ({ function: `f${line}`, file, line, column: 1 }));
    const page = renderDebugHtml(plainView({ frames }));
    assert.equal(page.split('<details open>').length - 1, 3);
    assert.ok(page.includes('<li class="app"><details><summary><code>f4</code>'));
  });
});

describe('request data never reaches the HTML page raw', () => {
  const page = renderDebugHtml(hostileView());

  it('escapes the path, query and Referer wherever they appear', () => {
    assert.ok(!page.includes('<script>alert(1)</script>'));
    assert.ok(!page.includes('<b>'));
    assert.ok(!page.includes("x' onload='y"));
    assert.ok(
      page.includes('https://localhost:8443/&lt;script&gt;alert(1)&lt;/script&gt;?a=&lt;b&gt;&amp;c=&quot;d&quot;'),
    );
    assert.ok(page.includes('(from &quot;x&#39; onload=&#39;y&quot;)'));
  });
  it('escapes a report link inside its attribute', () => {
    const linked = renderDebugHtml(hostileView({ frames: [], reportUrl: 'https://h/_profiler/"><script>x</script>' }));
    assert.ok(linked.includes('<a href="https://h/_profiler/&quot;&gt;&lt;script&gt;x&lt;/script&gt;">'));
  });
  it('is self-contained: no script, no external stylesheet, image or frame', () => {
    // Its only link is its own empty icon, so that a browser asks the service for no /favicon.ico.
    const withoutIcon = page.replace('<link rel="icon" href="data:,">', '');
    assert.notEqual(withoutIcon, page, 'it declares its icon');
    for (const tag of ['<script', '<link', '<img', '<iframe', ' src=']) assert.ok(!withoutIcon.includes(tag), tag);
    assert.ok(page.includes('<style>'));
  });
  it('follows the light or dark preference', () => {
    assert.ok(page.includes('color-scheme:light dark'));
    assert.ok(page.includes('@media(prefers-color-scheme:dark)'));
  });
});

describe('the production HTML page shows the status and reason phrase only', () => {
  it('tells a client error from a server error in its own words', () => {
    const notFound = renderProductionHtml({ status: 404, title: 'Not Found' });
    assert.ok(notFound.includes('<title>Error 404 Not Found</title>'));
    assert.ok(
      notFound.includes(
        '<h1>Error 404 Not Found</h1><p class="message">The service could not answer this request.</p>',
      ),
    );
    const failed = renderProductionHtml({ status: 500, title: 'Internal Server Error' });
    assert.ok(
      failed.includes(
        '<h1>Error 500 Internal Server Error</h1><p class="message">The service could not complete this request. Please try again later.</p>',
      ),
    );
  });
  it('shows nothing of the request or the exception even when given them', () => {
    const page = renderProductionHtml(hostileView());
    for (const secret of [
      'No route found',
      'localhost:8443',
      'script',
      'NotFoundHttpError',
      'VIGIL_ERR',
      'a1b2c3',
      'find-my-way',
      'Stack trace',
    ]) {
      assert.ok(!page.includes(secret), secret);
    }
  });
});

describe('problem details as JSON: type, title, status, detail, and in debug the exception and token', () => {
  it('gives the members in debug mode', () => {
    assert.equal(
      renderProblemJson(plainView(), true),
      '{"type":"about:blank","title":"Not Found","status":404,"detail":"No route found for \\"GET https://localhost:8443/x\\"",' +
        '"exception":{"class":"NotFoundHttpError","message":"No route found for \\"GET https://localhost:8443/x\\"",' +
        '"file":"/srv/app/node_modules/find-my-way/index.js","line":412,' +
        '"trace":[{"function":"Router.lookup","file":"/srv/app/node_modules/find-my-way/index.js","line":412}]},' +
        '"debugToken":"a1b2c3"}',
    );
  });
  it('gives null file and line when the raise site is unknown, and no debugToken without a token', () => {
    const problem = JSON.parse(
      renderProblemJson(plainView({ frames: [], site: undefined, token: undefined, reportUrl: undefined }), true),
    );
    assert.deepEqual(problem.exception, {
      class: 'NotFoundHttpError',
      message: 'No route found for "GET https://localhost:8443/x"',
      file: null,
      line: null,
      trace: [],
    });
    assert.equal('debugToken' in problem, false);
  });
  it('gives the reason phrase as detail and nothing else without debug', () => {
    assert.equal(
      renderProblemJson(hostileView(), false),
      '{"type":"about:blank","title":"Not Found","status":404,"detail":"Not Found"}',
    );
    assert.equal(
      renderProblemJson(
        hostileView({ status: 500, title: 'Internal Server Error', message: 'db password is hunter2' }),
        false,
      ),
      '{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error"}',
    );
  });
  it('carries request data as JSON strings that parse back to what was sent', () => {
    const view = hostileView({ message: 'quote " backslash \\ newline \n nul \u0000 </script>' });
    const problem = JSON.parse(renderProblemJson(view, true));
    assert.equal(problem.detail, 'quote " backslash \\ newline \n nul \u0000 </script>');
  });
});

describe('problem details as XML: root <problem xmlns="urn:ietf:rfc:7807">, the same members', () => {
  it('gives the members in debug mode, a frame element per trace entry', () => {
    assert.equal(
      renderProblemXml(plainView(), true),
      '<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807">' +
        '<type>about:blank</type><title>Not Found</title><status>404</status>' +
        '<detail>No route found for &quot;GET https://localhost:8443/x&quot;</detail>' +
        '<exception><class>NotFoundHttpError</class><message>No route found for &quot;GET https://localhost:8443/x&quot;</message>' +
        '<file>/srv/app/node_modules/find-my-way/index.js</file><line>412</line>' +
        '<trace><frame><function>Router.lookup</function><file>/srv/app/node_modules/find-my-way/index.js</file><line>412</line></frame></trace>' +
        '</exception><debugToken>a1b2c3</debugToken></problem>\n',
    );
  });
  it('writes an unknown raise site as empty elements and an empty trace', () => {
    const xml = renderProblemXml(plainView({ frames: [], site: undefined, token: undefined }), true);
    assert.ok(xml.includes('<file/><line/><trace></trace></exception></problem>'), xml);
  });
  it('gives the reason phrase as detail and nothing else without debug', () => {
    assert.equal(
      renderProblemXml(hostileView(), false),
      '<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Not Found</title><status>404</status><detail>Not Found</detail></problem>\n',
    );
  });
  it('escapes markup in request data', () => {
    const xml = renderProblemXml(hostileView(), true);
    assert.ok(!xml.includes('<script>'));
    assert.ok(
      xml.includes(
        '<detail>No route found for &quot;GET https://localhost:8443/&lt;script&gt;alert(1)&lt;/script&gt;&quot; (from &quot;x&apos; onload=&apos;y&quot;)</detail>',
      ),
    );
    assert.ok(xml.includes('<function>&lt;anonymous&gt;</function>'));
  });
  it('replaces the control characters XML 1.0 cannot carry, and keeps tab, newline and carriage return', () => {
    assert.equal(
      escapeXml('a\u0000b\u0008c\u000Bd\u000Ce\u001Ff\uFFFEg\uFFFF'),
      'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFD',
    );
    assert.equal(escapeXml('a\tb\nc\rd'), 'a\tb\nc\rd');
    assert.equal(escapeXml(`&<>"'`), '&amp;&lt;&gt;&quot;&apos;');
  });
});

describe('the text error is the status line, and in debug the message, the exception and the trace', () => {
  it('gives every part in debug mode, with the report link', () => {
    assert.equal(
      renderText(plainView({ frames: [vendorFrame, internalFrame] }), true),
      '404 Not Found\n\nNo route found for "GET https://localhost:8443/x"\n\nNotFoundHttpError (VIGIL_ERR_NOT_FOUND)\n' +
        '  at Router.lookup (/srv/app/node_modules/find-my-way/index.js:412)\n' +
        '  at <anonymous> (node:internal/process/task_queues:95)\n' +
        '\nDebug report: https://localhost:8443/_profiler/a1b2c3\n',
    );
  });
  it('leaves the report line out without a report', () => {
    assert.equal(
      renderText(plainView({ token: undefined, reportUrl: undefined }), true),
      '404 Not Found\n\nNo route found for "GET https://localhost:8443/x"\n\nNotFoundHttpError (VIGIL_ERR_NOT_FOUND)\n' +
        '  at Router.lookup (/srv/app/node_modules/find-my-way/index.js:412)\n',
    );
  });
  it('gives the status line only without debug', () => {
    assert.equal(renderText(hostileView(), false), '404 Not Found\n');
    assert.equal(
      renderText(hostileView({ status: 503, title: 'Service Unavailable' }), false),
      '503 Service Unavailable\n',
    );
  });
});

/** An application frame, a kernel frame and a dependency frame, from files that exist. */
const kernelFrame: StackFrame = {
  function: 'resolveUnmatched',
  file: join(projectRoot(), 'src/routing/unmatched.ts'),
  line: 5,
  column: 3,
};
const appFrame: StackFrame = {
  function: 'handler',
  file: join(projectRoot(), 'examples/demo-routes.ts'),
  line: 3,
  column: 3,
};

/** A TypeError caused by a RangeError, as the chain builder gives it. */
function chained(overrides: Partial<ChainedError> = {}): ChainedError {
  return {
    className: 'TypeError',
    message: 'bad <config> & "more"',
    frames: [appFrame],
    framesInCommon: 4,
    site: appFrame,
    cause: { className: 'RangeError', message: 'port out of range', frames: [], framesInCommon: 0, site: undefined },
    ...overrides,
  };
}

describe("the debug HTML page folds the kernel's and dependencies' frames, one click to open", () => {
  const page = renderDebugHtml(
    plainView({ frames: [appFrame, kernelFrame, kernelFrame, vendorFrame, appFrame, internalFrame], site: appFrame }),
  );

  it("keeps the application's frames in view and folds each run of the others into one closed <details>", () => {
    const trace = page.slice(page.indexOf('<h2>Stack trace</h2>'));
    const runs = trace.match(/<li class="(app|folded)">/g);
    assert.deepEqual(runs, ['<li class="app">', '<li class="folded">', '<li class="app">', '<li class="folded">']);
    assert.ok(
      trace.includes(
        '<li class="folded"><details><summary>2 vigil frames, 1 node_modules frame</summary><ol class="trace"><li class="kernel">',
      ),
      trace,
    );
    assert.ok(trace.includes('<li class="folded"><details><summary>1 frame outside the project</summary>'));
  });
  it('still carries the source of kernel frames inside the fold', () => {
    assert.ok(page.includes('<li class="kernel"><details><summary><code>resolveUnmatched</code>'));
    assert.ok(/<li class="kernel"><details><summary>.*?<\/summary><pre><code>/.test(page));
  });
  it('uses no script: the folds are <details> elements', () => {
    assert.ok(!page.includes('<script'));
  });
});

describe('editor links: project frames link to VIGIL_IDE, others and unset stay plain text', () => {
  const editor = loadConfig({ VIGIL_IDE: 'vscode' }, '/srv/app').ide;

  it('makes the file of a project frame a link, escaped in its attribute', () => {
    const page = renderDebugHtml(plainView({ frames: [appFrame, vendorFrame], site: appFrame }), { editor });
    assert.ok(page.includes(`<a class="file" href="vscode://file/${appFrame.file}:3">${appFrame.file}:3</a>`), page);
    assert.ok(
      page.includes('<span class="file">/srv/app/node_modules/find-my-way/index.js:412</span>'),
      'dependencies are not linked',
    );
  });
  it('links the raise site in the header', () => {
    const page = renderDebugHtml(plainView({ frames: [appFrame], site: appFrame }), { editor });
    assert.ok(
      page.includes(
        `<dt>Raised at</dt><dd><a class="file" href="vscode://file/${appFrame.file}:3">${appFrame.file}:3</a></dd>`,
      ),
      page,
    );
  });
  it('leaves every file plain when VIGIL_IDE is unset', () => {
    const page = renderDebugHtml(plainView({ frames: [appFrame, kernelFrame], site: appFrame }));
    assert.ok(!page.includes('<a class="file"'));
    assert.ok(page.includes(`<span class="file">${appFrame.file}:3</span>`));
  });
  it('encodes a hostile file name in the URL and escapes it in the page', () => {
    const file = join(projectRoot(), 'examples', `"><script>x</script>&.ts`);
    const frame: StackFrame = { function: 'f', file, line: 1, column: 1 };
    const page = renderDebugHtml(plainView({ frames: [frame], site: frame }), { editor });
    assert.ok(!page.includes('<script>x'));
    assert.ok(page.includes('href="vscode://file/'));
    assert.ok(page.includes('/%22%3E%3Cscript%3Ex%3C/script%3E%26.ts:1"'), page);
    assert.ok(page.includes('/&quot;&gt;&lt;script&gt;x&lt;/script&gt;&amp;.ts:1</a>'));
  });
  it('never links a javascript: URL', () => {
    assert.throws(() => loadConfig({ VIGIL_IDE: 'javascript:alert(%f)' }, '/srv/app'));
  });
});

describe('the debug HTML page shows the cause chain and the members of an AggregateError', () => {
  it('shows each cause with its class, message and raise site, escaped', () => {
    const page = renderDebugHtml(plainView({ related: { cause: chained() } }));
    assert.ok(
      page.includes(
        '<section class="related"><h2>Caused by <code>TypeError</code></h2><p class="message">bad &lt;config&gt; &amp; &quot;more&quot;</p>',
      ),
      page,
    );
    assert.ok(page.includes(`<p class="site">Raised at <span class="file">${appFrame.file}:3</span></p>`));
    assert.ok(page.includes('<p class="common">4 more frames, in common with the error above</p>'));
    assert.ok(
      page.includes(
        '<section class="related"><h2>Caused by <code>RangeError</code></h2><p class="message">port out of range</p>',
      ),
    );
    assert.ok(!page.includes('<config>'));
  });
  it('lists the members of an AggregateError, numbered, and how many were left out', () => {
    const page = renderDebugHtml(
      plainView({
        related: {
          members: [chained({ cause: undefined }), chained({ className: 'SyntaxError', cause: undefined })],
          membersOmitted: 3,
        },
      }),
    );
    assert.ok(page.includes('<h2>Error 1 of 5 <code>TypeError</code></h2>'), page);
    assert.ok(page.includes('<h2>Error 2 of 5 <code>SyntaxError</code></h2>'));
    assert.ok(page.includes('<p class="muted">3 more errors not shown.</p>'));
  });
  it('says where a cycle was cut and where the bounds stopped it', () => {
    const page = renderDebugHtml(
      plainView({
        related: { cause: chained({ cause: { ...chained({ cause: undefined }), repeated: true }, truncated: true }) },
      }),
    );
    assert.ok(page.includes('Shown above already: not followed again.'));
    assert.ok(
      page.includes('vigil follows causes 8 levels deep and 20 related errors at most: the rest is not shown.'),
    );
  });
});

describe('problem details carry the cause chain in debug mode only', () => {
  const view = plainView({
    related: {
      cause: chained({
        cause: {
          className: 'RangeError',
          message: 'port',
          frames: [],
          framesInCommon: 0,
          site: undefined,
          repeated: true,
        },
      }),
      members: [chained({ cause: undefined })],
      membersOmitted: 2,
    },
  });

  it('nests each cause under "cause" and members under "errors" in JSON', () => {
    const problem = JSON.parse(renderProblemJson(view, true));
    assert.deepEqual(problem.exception.cause, {
      class: 'TypeError',
      message: 'bad <config> & "more"',
      file: appFrame.file,
      line: 3,
      cause: { class: 'RangeError', message: 'port', file: null, line: null, repeated: true },
    });
    assert.deepEqual(problem.exception.errors, [
      { class: 'TypeError', message: 'bad <config> & "more"', file: appFrame.file, line: 3 },
    ]);
    assert.equal(problem.exception.errorsOmitted, 2);
  });
  it('writes the same as XML elements, escaped, an <error> per member', () => {
    const xml = renderProblemXml(view, true);
    assert.ok(
      xml.includes(
        `<cause><class>TypeError</class><message>bad &lt;config&gt; &amp; &quot;more&quot;</message><file>${appFrame.file}</file><line>3</line>` +
          '<cause><class>RangeError</class><message>port</message><file/><line/><repeated>true</repeated></cause></cause>',
      ),
      xml,
    );
    assert.ok(xml.includes(`<errors><error><class>TypeError</class>`));
    assert.ok(xml.includes('</errors><errorsOmitted>2</errorsOmitted></exception>'));
  });
  it('shows nothing of them without debug', () => {
    assert.equal(
      renderProblemJson(view, false),
      '{"type":"about:blank","title":"Not Found","status":404,"detail":"Not Found"}',
    );
    assert.ok(!renderProblemXml(view, false).includes('cause'));
    assert.equal(renderText(view, false), '404 Not Found\n');
    for (const secret of ['TypeError', 'bad &lt;config', 'RangeError'])
      assert.ok(!renderProductionHtml(view).includes(secret), secret);
  });
});

describe('the text error lists the members and causes after the trace', () => {
  it('gives each cause and member with its raise site', () => {
    const text = renderText(
      plainView({
        token: undefined,
        reportUrl: undefined,
        related: { cause: chained(), members: [chained({ cause: undefined })] },
      }),
      true,
    );
    assert.ok(
      text.endsWith(
        `\n\nError 1 of 1 TypeError: bad <config> & "more"\n  at handler (${appFrame.file}:3)\n` +
          `Caused by TypeError: bad <config> & "more"\n  at handler (${appFrame.file}:3)\n` +
          'Caused by RangeError: port out of range\n',
      ),
      text,
    );
  });
});
