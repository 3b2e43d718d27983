import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cutMessage, exceptionHeaders } from './exception-headers.js';
import { rawUrlEncode } from './rawurlencode.js';
import { installStackTraces, raiseSite } from './stack-trace.js';
import { repositoryRoot } from '../../test/support/root.js';

const ROOT = repositoryRoot(import.meta.dirname);

describe('rawUrlEncode is PHP rawurlencode', () => {
  it('keeps only A-Z a-z 0-9 - _ . ~', () => {
    assert.equal(rawUrlEncode('AZaz09-_.~ !\'()*/:"<>'), 'AZaz09-_.~%20%21%27%28%29%2A%2F%3A%22%3C%3E');
  });
  it('encodes UTF-8 bytes in upper-case hex', () => {
    assert.equal(rawUrlEncode('café €'), 'caf%C3%A9%20%E2%82%AC');
  });
  it('survives a lone surrogate', () => {
    assert.equal(rawUrlEncode('a\uD800b'), 'a%EF%BF%BDb');
  });
});

describe('x-debug-exception cuts the message at 2000 characters', () => {
  it('keeps short messages whole and cuts long ones without splitting a character', () => {
    assert.equal(cutMessage('short'), 'short');
    assert.equal(cutMessage('x'.repeat(2500)).length, 2000);
    const emoji = '😀'.repeat(2001);
    assert.equal([...cutMessage(emoji)].length, 2000);
  });
  it('writes the file as rawurlencoded path, colon, line', () => {
    const headers = exceptionHeaders('boom', { function: 'f', file: '/srv/app/my file.ts', line: 12, column: 3 });
    assert.deepEqual(headers, {
      'x-debug-exception': 'boom',
      'x-debug-exception-file': '%2Fsrv%2Fapp%2Fmy%20file.ts:12',
    });
  });
});

describe('raiseSite finds the TypeScript line that raised an error', () => {
  it('points at this file and the line of the throw', () => {
    installStackTraces();
    const error = new Error('here'); // the line raiseSite must name
    const site = raiseSite(error)!;
    const file = join(ROOT, 'src/debug/debug.test.ts');
    assert.equal(site.file, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(site.line, lines.findIndex((line) => line.includes('// the line raiseSite must name')) + 1);
  });
});
