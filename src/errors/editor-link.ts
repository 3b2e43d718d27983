/**
 * Links from a debug page to a source file in the developer's editor (`VIGIL_IDE`, checked
 * in `config/editor-link-format.ts`): the file, after its path mapping, URL-encoded segment
 * by segment so that no character of a path can end the URL or add to it.
 */
import type { EditorLinkFormat } from '../config/index.js';
import { rawUrlEncode } from '../debug/rawurlencode.js';

export type { EditorLinkFormat };

/**
 * The link to `file` at `line`, or null without a format or for a frame that is no file (Node internals).
 *
 * @example
 * ```ts
 * editorLink({ template: 'vscode://file/%f:%l', pathMap: [] }, '/srv/app/a b.ts', 3); // 'vscode://file//srv/app/a%20b.ts:3'
 * ```
 */
export function editorLink(format: EditorLinkFormat | undefined, file: string, line: number): string | null {
  if (format === undefined || !file.startsWith('/')) return null;
  let path = file;
  for (const [from, to] of format.pathMap) {
    if (path.startsWith(from)) {
      path = to + path.slice(from.length);
      break;
    }
  }
  const encoded = path.split('/').map(rawUrlEncode).join('/');
  // One pass, so that a `%l` inside the file's name is not replaced in turn.
  return format.template.replace(/%[fl]/g, (placeholder) => (placeholder === '%f' ? encoded : String(line)));
}
