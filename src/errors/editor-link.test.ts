/** Editor links: VIGIL_IDE's template with the file URL-encoded and the line, or no link at all. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.js';
import { editorLink } from './editor-link.js';

const ide = (value: string) => loadConfig({ VIGIL_IDE: value }, '/srv/app').ide;

describe('each known editor name gives its URL scheme, as Symfony names them', () => {
  const file = '/srv/app/src/handler.ts';
  const cases: Array<[string, string]> = [
    ['vscode', 'vscode://file//srv/app/src/handler.ts:12'],
    ['vscode-insiders', 'vscode-insiders://file//srv/app/src/handler.ts:12'],
    ['cursor', 'cursor://file//srv/app/src/handler.ts:12'],
    ['idea', 'idea://open?file=/srv/app/src/handler.ts&line=12'],
    ['phpstorm', 'phpstorm://open?file=/srv/app/src/handler.ts&line=12'],
    ['webstorm', 'webstorm://open?file=/srv/app/src/handler.ts&line=12'],
    ['sublime', 'subl://open?url=file:///srv/app/src/handler.ts&line=12'],
    ['textmate', 'txmt://open?url=file:///srv/app/src/handler.ts&line=12'],
    ['emacs', 'emacs://open?url=file:///srv/app/src/handler.ts&line=12'],
    ['macvim', 'mvim://open?url=file:///srv/app/src/handler.ts&line=12'],
    ['atom', 'atom://core/open/file?filename=/srv/app/src/handler.ts&line=12'],
  ];
  for (const [name, link] of cases) {
    it(name, () => assert.equal(editorLink(ide(name), file, 12), link));
  }
  it('takes names in any case', () => {
    assert.equal(editorLink(ide('VSCode'), file, 1), 'vscode://file//srv/app/src/handler.ts:1');
  });
});

describe('a format with %f and %l is used as written', () => {
  it('puts the file and the line in place', () => {
    assert.equal(
      editorLink(ide('myide://open?file=%f&line=%l'), '/srv/app/a.ts', 7),
      'myide://open?file=/srv/app/a.ts&line=7',
    );
  });
  it('maps path prefixes written after the format, as Symfony does (&from>to)', () => {
    const format = ide('vscode://file/%f:%l&/srv/app/>/home/ann/app/&/opt/>/home/ann/opt/');
    assert.equal(editorLink(format, '/srv/app/src/a.ts', 3), 'vscode://file//home/ann/app/src/a.ts:3');
    assert.equal(editorLink(format, '/opt/lib.ts', 4), 'vscode://file//home/ann/opt/lib.ts:4');
    assert.equal(editorLink(format, '/var/other.ts', 5), 'vscode://file//var/other.ts:5');
  });
  it('maps path prefixes after a known name too', () => {
    assert.equal(
      editorLink(ide('phpstorm&/srv/app/>/Users/ann/app/'), '/srv/app/x.ts', 2),
      'phpstorm://open?file=/Users/ann/app/x.ts&line=2',
    );
  });
});

describe('the file is URL-encoded, segment by segment', () => {
  it('encodes what would end or change the URL, and keeps the slashes', () => {
    assert.equal(
      editorLink(ide('vscode'), `/srv/my app/#1?x=&y/"<q>'%.ts`, 9),
      'vscode://file//srv/my%20app/%231%3Fx%3D%26y/%22%3Cq%3E%27%25.ts:9',
    );
  });
  it('encodes characters beyond ASCII as UTF-8', () => {
    assert.equal(editorLink(ide('vscode'), '/srv/café/€.ts', 1), 'vscode://file//srv/caf%C3%A9/%E2%82%AC.ts:1');
  });
});

describe('without VIGIL_IDE there is no link', () => {
  it('gives null', () => {
    assert.equal(loadConfig({}, '/srv/app').ide, undefined);
    assert.equal(editorLink(undefined, '/srv/app/a.ts', 1), null);
  });
  it('gives no link for a frame without a file path (Node internals)', () => {
    assert.equal(editorLink(ide('vscode'), 'node:internal/process/task_queues', 95), null);
  });
});
