import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OverviewSummary } from '../overview/overview-summary.js';
import { renderOverviewPage } from './overview-page.js';

function summaryOf(routes: string[]): OverviewSummary {
  return {
    window: '1h',
    requests: routes.length,
    routes: routes.map((route) => ({
      route,
      requests: 1,
      clientErrors: 0,
      serverErrors: 0,
      p50: 1,
      p95: 1,
      p99: 1,
      slowest: null,
    })),
    statements: [],
    upstreams: [],
    exceptions: [],
  };
}

describe('the overview page says what its (other) rows hold', () => {
  it('under a table that has one', () => {
    const page = renderOverviewPage(summaryOf(['GET /users/:id', '(other)']));
    assert.match(
      page,
      /<p class="muted other">\(other\) counts together the routes seen in a minute after its first 2000\.<\/p>/,
    );
    assert.ok(!page.includes('the statements seen'));
  });
  it('nowhere when no key was past the bound', () => {
    assert.ok(!renderOverviewPage(summaryOf(['GET /users/:id'])).includes('class="muted other"'));
  });
});
