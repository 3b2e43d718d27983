/**
 * A few lines of source around a line, for the project's own frames. A file is read only
 * when it is a source file under the project's root (links resolved), a regular file of at
 * most {@link MAX_SOURCE_BYTES}; it is opened non-blocking, so that a FIFO or a device never
 * holds up the event loop. Each file is read once and kept.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute } from 'node:path';
import { isUnder, projectRoot } from '../debug/project-root.js';

export interface SourceLine {
  number: number;
  text: string;
}

interface ExcerptOptions {
  /** Lines shown before and after the line. */
  radius?: number;
  /** The directory files must be in; the project's root by default. */
  root?: string;
}

/** Larger files get no excerpt: an excerpt is a few lines, never a download. */
export const MAX_SOURCE_BYTES = 1024 * 1024;
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);

const files = new Map<string, readonly string[] | null>();
const MAX_FILES = 200;

function linesOf(file: string, root: string): readonly string[] | null {
  const key = `${root}\0${file}`;
  let lines = files.get(key);
  if (lines === undefined) {
    lines = readSource(file, root)?.split(/\r?\n/) ?? null;
    if (files.size >= MAX_FILES) files.clear();
    files.set(key, lines);
  }
  return lines;
}

/** The text of `file`, or null when it is not a regular source file under `root` within the size cap. */
function readSource(file: string, root: string): string | null {
  if (!isAbsolute(file) || !SOURCE_EXTENSIONS.has(extname(file))) return null;
  let fd: number;
  try {
    const real = realpathSync(file);
    if (!isUnder(real, realpathSync(root))) return null;
    // Looked at before opening (opening a device can have effects of its own) and after.
    if (!statSync(real).isFile()) return null;
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_SOURCE_BYTES) return null;
    // One byte more than announced: a file that grows meanwhile (or a /proc file, size 0) is refused.
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > stats.size ? null : buffer.toString('utf8', 0, length);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Lines `line - radius` to `line + radius` of `file`, or undefined when it cannot or may not be read. */
export function sourceExcerpt(
  file: string,
  line: number,
  { radius = 3, root = projectRoot() }: ExcerptOptions = {},
): SourceLine[] | undefined {
  const lines = linesOf(file, root);
  if (!lines || line < 1 || line > lines.length) return undefined;
  const excerpt: SourceLine[] = [];
  for (let n = Math.max(1, line - radius); n <= Math.min(lines.length, line + radius); n++) {
    excerpt.push({ number: n, text: lines[n - 1]! });
  }
  return excerpt;
}
