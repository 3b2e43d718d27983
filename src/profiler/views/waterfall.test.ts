import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PerformanceSection } from '../collectors/performance.js';
import { renderWaterfall } from './waterfall.js';

const section: PerformanceSection = {
  total: 100,
  stages: { routing: 10, body: 10, handler: 70, sending: 10 },
  eventLoopUtilization: 0.5,
  eventLoopDelay: null,
  spans: [
    { name: 'load user', start: 25, duration: 20, depth: 0, error: false },
    { name: 'query', start: 30, duration: 0.4, depth: 1, error: false },
    { name: 'render <tpl>', start: 50, duration: 30, depth: 0, error: true },
    { name: 'background', start: 85, duration: null, depth: 0, error: false },
  ],
  spansOmitted: 3,
};

const rows = (page: string) =>
  [...page.matchAll(/<tr class="(stage|span)[^"]*" data-name="([^"]*)"/g)].map((match) => `${match[1]}:${match[2]}`);

describe('the waterfall draws the kernel stages and the spans as one', () => {
  it('orders the rows by start, each span under the stage it began in', () => {
    const page = renderWaterfall(section).value;
    assert.deepEqual(rows(page), [
      'stage:routing',
      'stage:body',
      'stage:handler',
      'span:load user',
      'span:query',
      'span:render &lt;tpl&gt;',
      'span:background',
      'stage:sending',
    ]);
  });

  it('places each bar by its start and length, as shares of the whole', () => {
    const page = renderWaterfall(section).value;
    assert.match(page, /data-name="handler".*?<span class="bar stage" style="margin-left:20%;width:70%"><\/span>/s);
    assert.match(page, /data-name="load user".*?<span class="bar span" style="margin-left:25%;width:20%"><\/span>/s);
    assert.match(
      page,
      /data-name="render &lt;tpl&gt;".*?<span class="bar span error" style="margin-left:50%;width:30%">/s,
    );
    assert.match(
      page,
      /data-name="background".*?<span class="bar span open" style="margin-left:85%;width:15%">.*?still running/s,
    );
    assert.match(page, /3 more spans were not kept/);
  });

  it('indents a span by its depth', () => {
    const page = renderWaterfall(section).value;
    assert.match(page, /data-name="query"><th style="padding-left:2\.9em">query<\/th>/);
    assert.match(page, /data-name="load user"><th style="padding-left:1\.7em">load user<\/th>/);
  });
});

describe('the threshold hides spans shorter than it, as Symfony’s timeline does', () => {
  it('keeps the stages and the longer spans, and says how many were hidden', () => {
    const page = renderWaterfall(section, { query: { threshold: '1' } }).value;
    assert.deepEqual(rows(page), [
      'stage:routing',
      'stage:body',
      'stage:handler',
      'span:load user',
      'span:render &lt;tpl&gt;',
      'span:background',
      'stage:sending',
    ]);
    assert.match(page, /1 span shorter than 1 ms hidden/);
    assert.match(
      page,
      /<form method="get" class="threshold"><input type="hidden" name="panel" value="performance"><label>Hide spans shorter than <input type="number" name="threshold" min="0" step="any" value="1"> ms<\/label>/,
    );
  });

  it('ignores a threshold that is not a number of milliseconds, and says so', () => {
    const page = renderWaterfall(section, { query: { threshold: 'abc' } }).value;
    assert.equal(rows(page).length, 8);
    assert.match(page, /"abc" is not a number of milliseconds: no span is hidden/);
  });
});

describe('a report written before spans were kept', () => {
  it('draws the stages alone', () => {
    const { spans, spansOmitted, ...old } = section;
    const page = renderWaterfall(old as PerformanceSection).value;
    assert.deepEqual(rows(page), ['stage:routing', 'stage:body', 'stage:handler', 'stage:sending']);
    assert.match(page, /No span was recorded/);
  });
});
