import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StackFrame } from '../debug/stack-trace.js';
import type { ErrorView } from './error-view.js';
import { DebugPageTemplates } from './page-template.js';
import { renderDebugHtml } from './render-html.js';

// Frames outside the project's source: the page shows them without reading any file.
const frames: readonly StackFrame[] = [
  { function: 'Router.lookup', file: '/srv/app/node_modules/find-my-way/index.js', line: 412, column: 9 },
  { function: '<anonymous>', file: 'node:internal/process/task_queues', line: 95, column: 5 },
];

function view(overrides: Partial<ErrorView> = {}): ErrorView {
  return {
    status: 404,
    title: 'Not Found',
    message: 'No route found for "GET https://localhost:8443/x"',
    className: 'NotFoundHttpError',
    code: 'VIGIL_ERR_NOT_FOUND',
    method: 'GET',
    url: 'https://localhost:8443/x',
    frames,
    site: frames[0],
    related: {},
    token: 'a1b2c3',
    reportUrl: 'https://localhost:8443/_profiler/a1b2c3',
    ...overrides,
  };
}

/** Requests of one throw path with what a client can put in them: markup, quotes, entities, other scripts. */
const HOSTILE: Partial<ErrorView>[] = [
  {
    message: 'No route found for "GET https://localhost:8443/<script>alert(1)</script>" (from "x\' onload=\'y")',
    url: 'https://localhost:8443/<script>alert(1)</script>?a=<b>&c="d"',
  },
  { method: 'PATCH', message: 'No route found for "PATCH https://h/&amp;&lt;"', url: "https://h/&amp;&lt;?q='" },
  {
    message: 'No route found for "GET https://h/caf\u00e9/\u{1F600}/\u0000"',
    url: 'https://h/caf\u00e9/\u{1F600}/\u0000',
    token: 'ffffff',
    reportUrl: 'https://h/_profiler/ffffff',
  },
  { message: '', url: '' },
];

describe('debug page templates', () => {
  it('give the bytes the renderer gives, for hostile values, once a throw path is met again', () => {
    const templates = new DebugPageTemplates();
    assert.equal(templates.render(view()), undefined, 'the first page of a throw path is rendered, not templated');
    for (const overrides of HOSTILE) {
      const page = templates.render(view(overrides));
      assert.ok(page, 'the second page and later come from the template');
      assert.equal(page.toString('utf8'), renderDebugHtml(view(overrides)));
    }
  });

  it('keep a template per kind of page: status, class, and whether a report link is shown', () => {
    const templates = new DebugPageTemplates();
    templates.render(view());
    const kinds: Partial<ErrorView>[] = [
      {},
      { status: 410, title: 'Gone' },
      {
        status: 405,
        title: 'Method Not Allowed',
        className: 'MethodNotAllowedHttpError',
        code: 'VIGIL_ERR_METHOD_NOT_ALLOWED',
      },
      { token: undefined, reportUrl: undefined },
      { reportUrl: undefined },
    ];
    for (const overrides of kinds) {
      assert.equal(templates.render(view(overrides))?.toString('utf8'), renderDebugHtml(view(overrides)));
    }
  });

  it('render pages with causes or members, and traces without frames, as they are', () => {
    const templates = new DebugPageTemplates();
    const withCause = view({
      related: { cause: { className: 'Error', message: 'inner', frames: [], framesInCommon: 0, site: undefined } },
    });
    templates.render(withCause);
    assert.equal(templates.render(withCause), undefined);
    const noFrames = view({ frames: [], site: undefined });
    templates.render(noFrames);
    assert.equal(templates.render(noFrames), undefined);
  });

  it('never template one throw path into another: each frames array has its own', () => {
    const templates = new DebugPageTemplates();
    const other: readonly StackFrame[] = [
      { function: 'elsewhere', file: '/srv/app/node_modules/x/y.js', line: 1, column: 1 },
    ];
    templates.render(view());
    templates.render(view());
    templates.render(view({ frames: other, site: other[0] }));
    assert.equal(
      templates.render(view({ frames: other, site: other[0] }))?.toString('utf8'),
      renderDebugHtml(view({ frames: other, site: other[0] })),
    );
  });

  it('template a bounded number of kinds per throw path: codes made from request data do not pile up', () => {
    const templates = new DebugPageTemplates();
    templates.render(view());
    const pages = Array.from({ length: 20 }, (_, i) => templates.render(view({ code: `APP_CODE_${i}` })));
    assert.equal(pages.filter((page) => page !== undefined).length, 8);
    assert.equal(templates.render(view({ code: 'APP_CODE_19' })), undefined, 'rendered as it is');
  });
});
