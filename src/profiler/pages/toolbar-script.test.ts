import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Script, runInNewContext } from 'node:vm';
import { barScript, recorderScript, TOOLBAR_HELPERS } from './toolbar-script.js';

interface Helpers {
  worstStatus(statuses: ReadonlyArray<number | null>): number | null;
  debugLinkIn(rawHeaders: unknown): string | null;
  shownUrl(url: unknown, origin: string): string;
}

// The helpers as the browser runs them: the same text, in a context of their own.
const helpers = runInNewContext(`${TOOLBAR_HELPERS};({ worstStatus, debugLinkIn, shownUrl })`, { URL }) as Helpers;

describe("the requests badge shows the worst of the page's statuses", () => {
  it('is the highest status, a failure (0) above all, pending ones (null) left out', () => {
    assert.equal(helpers.worstStatus([200, 404, 500, 302]), 500);
    assert.equal(helpers.worstStatus([200, 0, 503]), 0);
    assert.equal(helpers.worstStatus([503, 0, 200]), 0);
    assert.equal(helpers.worstStatus([null, 201]), 201);
    assert.equal(helpers.worstStatus([null]), null);
    assert.equal(helpers.worstStatus([]), null);
  });
});

describe("a request's report link is read from x-debug-token-link, and only a web link is kept", () => {
  it('finds the header in a raw header block, in any case', () => {
    const block = 'content-type: application/json\r\nX-Debug-Token-Link: https://localhost:8443/_profiler/a1b2c3\r\n';
    assert.equal(helpers.debugLinkIn(block), 'https://localhost:8443/_profiler/a1b2c3');
    assert.equal(helpers.debugLinkIn('x-debug-token-link: /_profiler/a1b2c3'), '/_profiler/a1b2c3');
  });
  it('gives null when the header is absent (a cross-origin answer that does not expose it)', () => {
    assert.equal(helpers.debugLinkIn('content-type: text/plain\r\n'), null);
    assert.equal(helpers.debugLinkIn(''), null);
    assert.equal(helpers.debugLinkIn(null), null);
    assert.equal(helpers.debugLinkIn('x-debug-token: a1b2c3\r\n'), null);
  });
  it('refuses any other scheme or a protocol-relative link, which the bar would make clickable', () => {
    for (const link of ['javascript:alert(1)', 'data:text/html,x', '//evil.example/x', 'https://a.example/"><b>', ' '])
      assert.equal(helpers.debugLinkIn(`x-debug-token-link: ${link}\r\n`), null, link);
  });
});

describe("a request's URL as the bar lists it", () => {
  it("is the path and query on the page's origin, the whole URL elsewhere", () => {
    assert.equal(helpers.shownUrl('/api/items?page=2', 'https://localhost:8443'), '/api/items?page=2');
    assert.equal(helpers.shownUrl('https://localhost:8443/api', 'https://localhost:8443'), '/api');
    assert.equal(helpers.shownUrl('https://api.example/v1', 'https://localhost:8443'), 'https://api.example/v1');
  });
  it('keeps what is not a URL as it was given, and names a missing one', () => {
    assert.equal(helpers.shownUrl('http://[', 'https://localhost:8443'), 'http://[');
    assert.equal(helpers.shownUrl(null, 'https://localhost:8443'), '(unknown)');
  });
});

describe('the scripts are whole JavaScript that cannot end their element early', () => {
  it('parses, and holds no </script', () => {
    for (const source of [recorderScript(), barScript()]) {
      assert.doesNotThrow(() => new Script(source));
      assert.doesNotMatch(source, /<\/script/i);
    }
  });
});
