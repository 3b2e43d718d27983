const REQ_ID_FIELD = '"reqId":"';
const MAX_LINES_PER_REQUEST = 200;
class LogTap {
  constructor(output = process.stdout) {
    this.output = output;
  }
  output;
  watched = /* @__PURE__ */ new Map();
  write(line) {
    this.output.write(line);
    if (this.watched.size > 0) this.keep(line);
    return true;
  }
  /** Starts keeping the lines of request `id`. */
  watch(id) {
    this.watched.set(id, { lines: [], omitted: 0 });
  }
  /** Stops watching request `id` and hands over its lines. */
  take(id) {
    const entry = this.watched.get(id);
    this.watched.delete(id);
    return entry ?? { lines: [], omitted: 0 };
  }
  get watching() {
    return this.watched.size;
  }
  keep(line) {
    const at = line.indexOf(REQ_ID_FIELD);
    if (at === -1) return;
    const start = at + REQ_ID_FIELD.length;
    const entry = this.watched.get(line.slice(start, line.indexOf('"', start)));
    if (!entry) return;
    if (entry.lines.length < MAX_LINES_PER_REQUEST) entry.lines.push(line);
    else entry.omitted++;
  }
}
export {
  LogTap
};
//# sourceMappingURL=log-tap.js.map
