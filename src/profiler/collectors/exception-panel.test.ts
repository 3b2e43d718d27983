import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RelatedErrorView } from '../../errors/trace-lines.js';
import { exceptionText, type ExceptionSection } from './exception-panel.js';

const related = (klass: string, message: string, more: Partial<RelatedErrorView> = {}): RelatedErrorView => ({
  class: klass,
  message,
  file: 'src/shop.ts',
  line: 7,
  link: null,
  trace: [],
  framesInCommon: 0,
  ...more,
});

const section = (more: Partial<ExceptionSection>): ExceptionSection => ({
  class: 'AggregateError',
  message: 'all failed',
  code: 'VIGIL_ERR_INTERNAL',
  status: 500,
  file: null,
  line: null,
  trace: [],
  ...more,
});

describe('exceptionText prints the members and the chain of causes', () => {
  it('numbers the members, each followed by its causes, then the chain of causes', () => {
    const lines = exceptionText(
      section({
        errors: [related('TypeError', 'first', { cause: related('Error', 'below first') }), related('Error', 'second')],
        errorsOmitted: 1,
        cause: related('Error', 'outer cause', { cause: related('Error', 'the first again', { repeated: true }) }),
        truncated: true,
      }),
    );
    assert.deepEqual(lines, [
      'AggregateError (VIGIL_ERR_INTERNAL, status 500): all failed',
      'Error 1 of 3 TypeError: first',
      '  raised at src/shop.ts:7',
      'Caused by Error: below first',
      '  raised at src/shop.ts:7',
      'Error 2 of 3 Error: second',
      '  raised at src/shop.ts:7',
      '1 more errors not shown',
      'Caused by Error: outer cause',
      '  raised at src/shop.ts:7',
      'Caused by Error: the first again (shown above already)',
      '  raised at src/shop.ts:7',
      '(deeper causes not shown)',
    ]);
  });

  it('prints no cause lines for an error without any', () => {
    assert.deepEqual(exceptionText(section({ file: 'src/a.ts', line: 1 })), [
      'AggregateError (VIGIL_ERR_INTERNAL, status 500): all failed',
      'raised at src/a.ts:1',
    ]);
  });
});
