import { SqliteReportStore } from "./sqlite-store.js";
function createReportStore(dsn, options = {}) {
  switch (dsn.scheme) {
    case "sqlite":
      return new SqliteReportStore(dsn.file, options);
  }
}
export {
  createReportStore
};
//# sourceMappingURL=store-factory.js.map
