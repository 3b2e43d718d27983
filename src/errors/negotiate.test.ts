import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateErrorFormat } from './negotiate.js';

describe('negotiateErrorFormat', () => {
  it('gives HTML without Accept, for */*, text/html and unknown types', () => {
    for (const accept of [
      undefined,
      '',
      '*/*',
      'text/html',
      'image/png',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    ]) {
      assert.equal(negotiateErrorFormat(accept), 'html', String(accept));
    }
  });

  it('maps each supported type to its format', () => {
    assert.equal(negotiateErrorFormat('application/json'), 'json');
    assert.equal(negotiateErrorFormat('application/problem+json'), 'json');
    assert.equal(negotiateErrorFormat('application/xml'), 'xml');
    assert.equal(negotiateErrorFormat('text/xml'), 'xml');
    assert.equal(negotiateErrorFormat('application/problem+xml'), 'xml');
    assert.equal(negotiateErrorFormat('text/plain'), 'text');
  });

  it('lets the highest q-value win', () => {
    assert.equal(negotiateErrorFormat('text/html;q=0.5, application/json'), 'json');
    assert.equal(negotiateErrorFormat('application/json;q=0.5, text/plain;q=0.9'), 'text');
    assert.equal(negotiateErrorFormat('application/json; q=0.2, */*; q=0.1'), 'json');
  });

  it('breaks ties by the order in the header', () => {
    assert.equal(negotiateErrorFormat('application/xml, application/json'), 'xml');
    assert.equal(negotiateErrorFormat('text/plain, application/json'), 'text');
    assert.equal(negotiateErrorFormat('application/json;q=0.8, text/plain;q=0.8'), 'json');
  });

  it('never chooses a type refused with q=0, even through a wildcard', () => {
    assert.equal(negotiateErrorFormat('text/html;q=0, application/json;q=0.1'), 'json');
    assert.equal(negotiateErrorFormat('application/json;q=0'), 'html');
    assert.equal(negotiateErrorFormat('text/html;q=0, */*'), 'json');
  });

  it('is not case-sensitive and ignores other parameters', () => {
    assert.equal(negotiateErrorFormat('Application/JSON; charset=utf-8'), 'json');
  });
});

describe('negotiateErrorFormat with a fallback (JSON for an API)', () => {
  it('gives the fallback for no Accept, */* and a */* that decides alone', () => {
    for (const accept of [undefined, '', '*/*', 'application/octet-stream, */*', 'image/png;q=0.9, */*;q=0.5'])
      assert.equal(negotiateErrorFormat(accept, 'json'), 'json', String(accept));
  });
  it('gives a named format before it, and never one refused', () => {
    assert.equal(negotiateErrorFormat('text/html,application/xhtml+xml,*/*;q=0.8', 'json'), 'html');
    assert.equal(negotiateErrorFormat('text/plain, */*', 'json'), 'text');
    assert.equal(negotiateErrorFormat('application/json;q=0, */*', 'json'), 'html');
  });
});
