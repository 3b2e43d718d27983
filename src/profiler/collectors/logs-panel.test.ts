import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogsSection } from './logs.js';
import type { Report } from '../model/report.js';
import { logsPanel } from './logs-panel.js';

const report = {} as Report;

describe('the logs panel says which logger wrote each line', () => {
  it('has a Logger column, and reads a line of an older report as the request logger’s', () => {
    const section: LogsSection = {
      lines: [
        { logger: 'console.warn', level: 'warn', time: 0, message: 'careful <b>', context: {} },
        { logger: 'app', level: 'info', time: 0, message: 'app line', context: {} },
        { level: 'info', time: 0, message: 'old line', context: {} },
      ],
      omitted: 0,
    };
    const page = logsPanel.render!(section, report, { query: {} }).value;
    assert.match(page, /<thead><tr><th>Logger<\/th><th>Level<\/th>/);
    assert.match(
      page,
      /<tr class="level-warn"><td>console\.warn<\/td><td>warn<\/td><td>[^<]*<\/td><td>careful &lt;b&gt;<\/td>/,
    );
    assert.match(page, /<td>app<\/td><td>info<\/td>/);
    assert.match(page, /<td>request<\/td><td>info<\/td><td>[^<]*<\/td><td>old line<\/td>/);
  });
});
