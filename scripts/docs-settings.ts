/**
 * `npm run docs:settings`: rewrites the settings table of docs/configuration.md from the
 * table declared in src/config/settings.ts. test/structure/settings-docs.test.ts fails when they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTING_GROUPS, SETTINGS, type Setting } from '../src/config/index.js';

export const START = '<!-- settings:start -->';
export const END = '<!-- settings:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;');
const code = (text: string) => `\`${text}\``;

/** The table in Markdown: a heading per group, a row per setting. */
export function settingsMarkdown(): string {
  const settings = Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>;
  const sections = Object.entries(SETTING_GROUPS).map(([group, heading]) => {
    const rows = settings
      .filter(([, declared]) => declared.group === group)
      .map(([name, declared]) => {
        const fallback = declared.default !== undefined ? code(declared.default) : (declared.defaultText ?? '(none)');
        const off = declared.off === undefined ? '' : ` (${declared.off})`;
        return `| ${code(name)} | ${cell(fallback + off)} | ${cell(declared.description)} |`;
      });
    return [`### ${heading}`, '', '| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
  });
  return sections.join('\n\n');
}

/** `document` with the text between the markers replaced by the table. */
export function withSettingsTable(document: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/configuration.md lacks the markers ${START} and ${END}`);
  return `${document.slice(0, start + START.length)}\n\n${settingsMarkdown()}\n\n${document.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const CONFIGURATION_DOC = join(fileURLToPath(new URL('..', import.meta.url)), 'docs', 'configuration.md');
  const before = readFileSync(CONFIGURATION_DOC, 'utf8');
  const after = withSettingsTable(before);
  if (after !== before) writeFileSync(CONFIGURATION_DOC, after);
  process.stdout.write(
    `docs/configuration.md: ${after === before ? 'already up to date' : 'settings table rewritten'}\n`,
  );
}
