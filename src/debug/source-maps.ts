/**
 * The source map of a generated file, for the frames of a trace: Node's, when it recorded
 * one as the file loaded (`--enable-source-maps`, or a module loaded once vigil turned them
 * on), else the `.js.map` the file names, read from the disk once. An application compiled
 * to `dist/` and started with plain `node` loaded its files before vigil could turn source
 * maps on: without this its frames would name `dist/app.js`, not `src/app.ts`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { findSourceMap, SourceMap, type SourceMapping } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A map larger than this is not read: no file of an application has one. */
const MAX_MAP_BYTES = 16 * 1024 * 1024;
/** The comment naming the map sits in the file's last lines: its tail is all that is read. */
const TAIL_BYTES = 4096;
/** Files whose map (or its absence) is remembered; past it, the memory starts over. */
const MAX_REMEMBERED = 1000;

const read = new Map<string, SourceMap | null>();

/** The original place of a generated position (0-based line and column), if a map says one. */
export function originalPosition(file: string, line: number, column: number): Partial<SourceMapping> | undefined {
  const map = findSourceMap(file) ?? mapOnDisk(file);
  return map?.findEntry(line, column) as Partial<SourceMapping> | undefined;
}

function mapOnDisk(file: string): SourceMap | undefined {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  if (!isAbsolute(path) || !/\.[cm]?js$/.test(path) || path.includes('/node_modules/')) return undefined;
  let map = read.get(path);
  if (map === undefined) {
    map = readMap(path);
    if (read.size >= MAX_REMEMBERED) read.clear();
    read.set(path, map);
  }
  return map ?? undefined;
}

/** The map the file's `sourceMappingURL` names: a file beside it, or inline as a data URL. */
function readMap(path: string): SourceMap | null {
  try {
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(tail(path))?.[1];
    if (url === undefined) return null;
    const inline = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.+)$/.exec(url);
    const text = inline
      ? Buffer.from(inline[1]!, 'base64').toString('utf8')
      : /^[a-z]+:/i.test(url)
        ? undefined
        : whole(resolve(dirname(path), decodeURIComponent(url)));
    if (text === undefined) return null;
    const payload = JSON.parse(text) as ConstructorParameters<typeof SourceMap>[0] & { sourceRoot?: string };
    // The sources are relative to the map: made absolute, as Node's own maps give them.
    const root = resolve(dirname(path), payload.sourceRoot ?? '');
    return new SourceMap({ ...payload, sources: payload.sources.map((source) => resolve(root, source)) });
  } catch {
    return null;
  }
}

function tail(path: string): string {
  const descriptor = openSync(path, 'r');
  try {
    const size = fstatSync(descriptor).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(descriptor, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}

function whole(path: string): string | undefined {
  const descriptor = openSync(path, 'r');
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > MAX_MAP_BYTES) return undefined;
    const buffer = Buffer.alloc(stats.size);
    readSync(descriptor, buffer, 0, stats.size, 0);
    return buffer.toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}
