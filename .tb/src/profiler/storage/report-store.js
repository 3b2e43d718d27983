class ReportStoreError extends Error {
  constructor(location, message, options = {}) {
    super(message, { cause: options.cause });
    this.location = location;
    this.damaged = options.damaged ?? false;
  }
  location;
  name = "ReportStoreError";
  /** The file is damaged, rather than out of reach. */
  damaged;
}
export {
  ReportStoreError
};
//# sourceMappingURL=report-store.js.map
