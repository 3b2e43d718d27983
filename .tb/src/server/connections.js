const REFUSAL_LOG_MS = 1e3;
class OpenConnections {
  constructor(server, maxConnections, log) {
    this.maxConnections = maxConnections;
    this.log = log;
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    if (Number.isFinite(maxConnections)) {
      server.maxConnections = maxConnections;
      server.on("drop", () => this.countRefusal());
    }
  }
  maxConnections;
  log;
  sockets = /* @__PURE__ */ new Set();
  refused = 0;
  refusalLog;
  get size() {
    return this.sockets.size;
  }
  /** Closes every open connection now, whatever it is doing. */
  destroyAll() {
    for (const socket of this.sockets) socket.destroy();
  }
  countRefusal() {
    this.refused++;
    if (!this.refusalLog) this.logRefusals();
  }
  /** Logs the refusals counted so far, then waits a second before the next line. */
  logRefusals() {
    if (this.refused === 0) {
      this.refusalLog = void 0;
      return;
    }
    this.log.warn(`Refused ${this.refused} connection${this.refused === 1 ? "" : "s"}: MAX_CONNECTIONS (${this.maxConnections}) are open`);
    this.refused = 0;
    this.refusalLog = setTimeout(() => this.logRefusals(), REFUSAL_LOG_MS);
    this.refusalLog.unref();
  }
}
export {
  OpenConnections
};
//# sourceMappingURL=connections.js.map
