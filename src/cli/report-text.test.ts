import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Report } from '../profiler/model/report.js';
import type { Collector } from '../profiler/model/request-profile.js';
import { reportAsText } from './report-text.js';

const report: Report = {
  token: 'abc123',
  time: 0,
  method: 'GET',
  url: 'https://localhost/x',
  status: 200,
  ip: '127.0.0.1',
  duration: 1,
  collectors: {
    performance: {
      total: 3,
      stages: { routing: 1, handler: 2 },
      eventLoopUtilization: null,
      eventLoopDelay: null,
      spans: [
        { name: 'load', start: 1, duration: 1.5, depth: 0, error: false },
        { name: 'query', start: 1.2, duration: 0.5, depth: 1, error: true },
      ],
      spansOmitted: 0,
    },
    queries: { count: 2 },
    other: { a: 1 },
  },
};

const queries: Collector<{ count: number }> = {
  name: 'queries',
  collect: () => ({ count: 2 }),
  panel: { title: 'Database queries' },
  text: (section) => [`${section.count} queries`, 'none slow'],
};

describe("a collector's command-line text comes with it", () => {
  it('prints its lines under its title; a section without text stays JSON', () => {
    const text = reportAsText(report, [queries]);
    assert.match(text, /\nDatabase queries\n  2 queries\n  none slow\n/);
    assert.match(text, /\nother\n  \{\n    "a": 1\n  \}/);
  });

  it('prints each of its lines on one line, a line break in a value shown escaped', () => {
    const forging: Collector<{ count: number }> = { ...queries, text: () => ['one\nSECRET forged\u202e', 'two'] };
    const text = reportAsText(report, [forging]);
    assert.match(text, /\nDatabase queries\n {2}one\\nSECRET forged\\u202e\n {2}two\n/);
  });

  it('lists the spans under the stages, indented by depth, failures marked', () => {
    const text = reportAsText(report);
    assert.match(
      text,
      /\nPerformance\n  total 3\.00 ms: routing 1\.00 ms, handler 2\.00 ms\n  span load 1\.50 ms\n    span query 0\.50 ms \(failed\)\n/,
    );
  });
});
