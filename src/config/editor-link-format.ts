/** VIGIL_IDE: how debug pages link a source file to an editor (Symfony's `framework.ide`). */
import { ConfigError } from './config-error.js';
import { raw, type Env } from './environment.js';

/** An editor link: `template` with `%f` (the file) and `%l` (the line); paths starting with a `from` are rewritten to its `to` first. */
export interface EditorLinkFormat {
  template: string;
  pathMap: Array<[from: string, to: string]>;
}

/** Symfony's `framework.ide` names, and the editors it lacks (cursor, idea, webstorm). */
const EDITORS: Record<string, string> = {
  atom: 'atom://core/open/file?filename=%f&line=%l',
  cursor: 'cursor://file/%f:%l',
  emacs: 'emacs://open?url=file://%f&line=%l',
  idea: 'idea://open?file=%f&line=%l',
  macvim: 'mvim://open?url=file://%f&line=%l',
  phpstorm: 'phpstorm://open?file=%f&line=%l',
  sublime: 'subl://open?url=file://%f&line=%l',
  textmate: 'txmt://open?url=file://%f&line=%l',
  vscode: 'vscode://file/%f:%l',
  'vscode-insiders': 'vscode-insiders://file/%f:%l',
  webstorm: 'webstorm://open?file=%f&line=%l',
};

/** Schemes a browser runs as script or as a document of their own: never a link of a debug page. */
const SCRIPT_SCHEMES = new Set(['javascript', 'data', 'vbscript']);

/**
 * An editor name or a link format with `%f` and `%l` (Symfony's `framework.ide`), either
 * followed by `&from>to` path mappings. A format must start with its own scheme and hold
 * no space or control character (browsers drop those, so `java\tscript:` would run).
 */
export function editorLinkFormat(env: Env, name: string): EditorLinkFormat | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const known = /^([a-z-]+)(&.*)?$/i.exec(value);
  const editor = known ? EDITORS[known[1]!.toLowerCase()] : undefined;
  const format = editor !== undefined ? editor + (known![2] ?? '') : value;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(format)?.[1];
  if (scheme !== undefined && SCRIPT_SCHEMES.has(scheme.toLowerCase())) {
    throw new ConfigError(
      name,
      `the scheme "${scheme.toLowerCase()}:" may run script in the page; use an editor's own scheme`,
    );
  }
  // Mappings follow the last placeholder: `...%l&/srv/app/>/home/ann/app/`.
  const end = format.indexOf('&', Math.max(format.lastIndexOf('%f'), format.lastIndexOf('%l')));
  const template = end === -1 ? format : format.slice(0, end);
  if (scheme === undefined || !template.includes('%f') || /[\s\u0000-\u001f\u007f]/.test(format)) {
    throw new ConfigError(
      name,
      `"${value}" is not a known editor (${Object.keys(EDITORS).join(', ')}) nor a link format with %f and %l, e.g. myide://open?file=%f&line=%l`,
    );
  }
  const pathMap: Array<[string, string]> = [];
  for (const mapping of end === -1 ? [] : format.slice(end + 1).split('&')) {
    const arrow = mapping.indexOf('>');
    if (arrow <= 0)
      throw new ConfigError(
        name,
        `"${mapping}" is not a path mapping: write &from>to after the format, e.g. &/srv/app/>/home/ann/app/`,
      );
    pathMap.push([mapping.slice(0, arrow), mapping.slice(arrow + 1)]);
  }
  return { template, pathMap };
}
