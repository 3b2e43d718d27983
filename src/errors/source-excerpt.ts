/** A few lines of source around a line, read once per file and kept. */
import { readFileSync } from 'node:fs';

export interface SourceLine {
  number: number;
  text: string;
}

const files = new Map<string, readonly string[] | null>();
const MAX_FILES = 200;

function linesOf(file: string): readonly string[] | null {
  let lines = files.get(file);
  if (lines === undefined) {
    try {
      lines = readFileSync(file, 'utf8').split(/\r?\n/);
    } catch {
      lines = null;
    }
    if (files.size >= MAX_FILES) files.clear();
    files.set(file, lines);
  }
  return lines;
}

/** Lines `line - radius` to `line + radius` of `file`, or undefined when it cannot be read. */
export function sourceExcerpt(file: string, line: number, radius = 3): SourceLine[] | undefined {
  const lines = linesOf(file);
  if (!lines || line < 1 || line > lines.length) return undefined;
  const excerpt: SourceLine[] = [];
  for (let n = Math.max(1, line - radius); n <= Math.min(lines.length, line + radius); n++) {
    excerpt.push({ number: n, text: lines[n - 1]! });
  }
  return excerpt;
}
