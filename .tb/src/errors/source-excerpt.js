import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { extname, isAbsolute } from "node:path";
import { isUnder, projectRoot } from "../debug/project-root.js";
const MAX_SOURCE_BYTES = 1024 * 1024;
const SOURCE_EXTENSIONS = /* @__PURE__ */ new Set([".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]);
const files = /* @__PURE__ */ new Map();
const MAX_FILES = 200;
function linesOf(file, root) {
  const key = `${root}\0${file}`;
  let lines = files.get(key);
  if (lines === void 0) {
    lines = readSource(file, root)?.split(/\r?\n/) ?? null;
    if (files.size >= MAX_FILES) files.clear();
    files.set(key, lines);
  }
  return lines;
}
function readSource(file, root) {
  if (!isAbsolute(file) || !SOURCE_EXTENSIONS.has(extname(file))) return null;
  let fd;
  try {
    const real = realpathSync(file);
    if (!isUnder(real, realpathSync(root))) return null;
    if (!statSync(real).isFile()) return null;
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_SOURCE_BYTES) return null;
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > stats.size ? null : buffer.toString("utf8", 0, length);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
function sourceExcerpt(file, line, { radius = 3, root = projectRoot() } = {}) {
  const lines = linesOf(file, root);
  if (!lines || line < 1 || line > lines.length) return void 0;
  const excerpt = [];
  for (let n = Math.max(1, line - radius); n <= Math.min(lines.length, line + radius); n++) {
    excerpt.push({ number: n, text: lines[n - 1] });
  }
  return excerpt;
}
export {
  MAX_SOURCE_BYTES,
  sourceExcerpt
};
//# sourceMappingURL=source-excerpt.js.map
