import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { html } from '../../utils/html.js';
import type { Report } from '../model/report.js';
import { defaultCollectors } from '../collectors/index.js';
import { LogTap } from '../activity/log-tap.js';
import type { Collector } from '../model/request-profile.js';
import { panelNames, renderReportPage } from './report-page.js';

const report: Report = {
  token: 'abc123',
  time: 0,
  method: 'GET',
  url: 'https://localhost/x',
  status: 200,
  ip: '127.0.0.1',
  duration: 1,
  collectors: {
    request: { method: 'GET' },
    queries: { count: 2, slow: 1, list: [{ sql: 'select 1', ms: 1.23456 }] },
    plain: { when: 0.5 },
    orphan: { a: 1 },
  },
};

const queries: Collector<{ count: number; slow: number }> = {
  name: 'queries',
  collect: () => ({ count: 2, slow: 1 }),
  panel: {
    title: 'Database queries',
    badge: (section) => ({ value: section.count, status: section.slow > 0 ? 'warn' : 'ok' }),
    render: (section) => html`<p id="query-count">${section.count} queries, ${section.slow} slow</p>`,
  },
  text: (section) => [`${section.count} queries`],
};
const plain: Collector = { name: 'plain', collect: () => ({}) };
const builtIn = defaultCollectors({ matcher: () => undefined, logTap: new LogTap({ write: () => true }) });
after(() => {
  for (const collector of builtIn) collector.close?.();
});
const collectors = [...builtIn, queries, plain] as Collector[];

const menuEntry = (page: string, name: string) =>
  new RegExp(
    `<a href="/_profiler/abc123\\?panel=${name}"[^>]*><span>([^<]*)</span><span class="count">(.*?)</span></a>`,
  ).exec(page);

describe("a collector's panel: its title in the menu and as the heading, its badge, its renderer", () => {
  it('shows the title and a badge with its status colour in the menu', () => {
    const page = renderReportPage(report, 'request', { query: {} }, collectors);
    const entry = menuEntry(page, 'queries');
    assert.equal(entry?.[1], 'Database queries');
    assert.equal(entry?.[2], '<span class="pill warn">2</span>');
  });

  it('renders the panel with its own renderer under the menu’s title', () => {
    const page = renderReportPage(report, 'queries', { query: {} }, collectors);
    assert.match(
      page,
      /<section class="card" id="panel-queries" data-panel="queries"><h2>Database queries<\/h2><p id="query-count">2 queries, 1 slow<\/p><\/section>/,
    );
  });

  it('gives a collector without a panel a title from its name, and its data as tables under it', () => {
    const page = renderReportPage(report, 'plain', { query: {} }, collectors);
    assert.equal(menuEntry(page, 'plain')?.[1], 'Plain');
    assert.match(
      page,
      /data-panel="plain"><h2>Plain<\/h2><table class="kv"><tbody><tr><th>when<\/th><td><code>0\.5<\/code><\/td>/,
    );
  });

  it('still shows a section no registered collector knows, the same way', () => {
    const page = renderReportPage(report, 'orphan', { query: {} }, collectors);
    assert.match(page, /data-panel="orphan"><h2>Orphan<\/h2>/);
    assert.deepEqual(panelNames(report, collectors), [
      'request',
      'response',
      'exception',
      'routing',
      'performance',
      'memory',
      'logs',
      'queries',
      'plain',
      'orphan',
    ]);
  });

  it('shows no badge when the badge function fails, and the page still renders', () => {
    const broken: Collector = {
      name: 'queries',
      collect: () => ({}),
      panel: {
        badge: () => {
          throw new Error('bug');
        },
      },
    };
    const page = renderReportPage(report, 'request', { query: {} }, [broken]);
    assert.equal(menuEntry(page, 'queries')?.[2], '');
  });
});

describe('the built-in memory and performance collectors are units too', () => {
  it('shows their panels with the same titles and headings as before', () => {
    const withMemory = {
      ...report,
      collectors: {
        memory: {
          start: null,
          end: { heapUsed: 1048576, heapTotal: 2097152, external: 0, rss: 4194304 },
          heapDelta: null,
          peakRss: 4194304,
        },
      },
    };
    const page = renderReportPage(withMemory, 'memory', { query: {} }, builtIn);
    assert.equal(menuEntry(page, 'memory')?.[1], 'Memory');
    assert.equal(menuEntry(page, 'memory')?.[2], '1 MiB');
    assert.match(page, /data-panel="memory"><h2>Memory<\/h2>/);
  });
});
