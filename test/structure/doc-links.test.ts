/**
 * The documentation's relative links resolve: every link between the README, docs/,
 * CONTRIBUTING.md and the other Markdown pages names a file that exists and, when it names
 * a section (`#anchor`), a heading of that page.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/root.js';

/** The Markdown pages of the repository that readers follow links between. */
function pages(): string[] {
  const top = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'bench/README.md', 'deploy/README.md'];
  const docs = existsSync(join(ROOT, 'docs'))
    ? readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`)
    : [];
  return [...top, ...docs].filter((page) => existsSync(join(ROOT, page)));
}

/** The page's text without fenced code blocks and inline code, where `[x](y)` is no link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(heading!);
    const count = seen.get(anchor) ?? 0;
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    seen.set(anchor, count + 1);
  }
  return anchors;
}

/** Every relative link of a page that does not resolve, with the reason. */
export function brokenLinks(page: string): string[] {
  const file = join(ROOT, page);
  const broken: string[] = [];
  for (const [, target] of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      broken.push(`${page}: ${target} (no file ${relative(ROOT, resolved)})`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
    if (!anchorsOf(resolved).has(anchor))
      broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, resolved)})`);
  }
  return broken;
}

describe('the documentation links only to pages and sections that exist', () => {
  it('finds the pages', () => {
    assert.ok(pages().includes('README.md'));
  });

  for (const page of pages()) {
    it(`${page}: every relative link resolves`, () => {
      assert.deepEqual(brokenLinks(page), []);
    });
  }
});

describe("the benchmark's generated table lives in bench/README.md only", () => {
  const START = '<!-- bench:start -->';
  const END = '<!-- bench:end -->';

  it('bench/README.md holds one pair of markers, in order', () => {
    const file = join(ROOT, 'bench/README.md');
    assert.ok(existsSync(file), 'bench/README.md does not exist');
    const text = readFileSync(file, 'utf8');
    assert.equal(text.split(START).length, 2, `one ${START}`);
    assert.equal(text.split(END).length, 2, `one ${END}`);
    assert.ok(text.indexOf(START) < text.indexOf(END));
  });

  it('no other page holds them', () => {
    const others = pages().filter((page) => page !== 'bench/README.md');
    assert.deepEqual(
      others.filter((page) => readFileSync(join(ROOT, page), 'utf8').includes(START)),
      [],
    );
  });
});
