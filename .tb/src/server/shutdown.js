class Shutdown {
  constructor(app, connections, timeoutMs) {
    this.app = app;
    this.connections = connections;
    this.timeoutMs = timeoutMs;
  }
  app;
  connections;
  timeoutMs;
  closing;
  /** Resolves once the service is closed and its queued reports are written. */
  close() {
    if (this.closing) return this.closing;
    const deadline = setTimeout(() => this.cut(`SHUTDOWN_TIMEOUT (${this.timeoutMs / 1e3}s) passed`), this.timeoutMs);
    this.closing = this.app.close().finally(() => clearTimeout(deadline));
    return this.closing;
  }
  /** Cuts every connection still open, and says how many it cut. */
  cut(reason, how = "") {
    const open = this.connections.size;
    this.app.log.warn(`${reason}: closing ${open} connection${open === 1 ? "" : "s"} still open${how}`);
    this.connections.destroyAll();
  }
}
export {
  Shutdown
};
//# sourceMappingURL=shutdown.js.map
