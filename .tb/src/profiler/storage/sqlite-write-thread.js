import { parentPort, workerData } from "node:worker_threads";
import { settleDiskUse } from "./sqlite-disk.js";
import { openDatabase } from "./sqlite-open.js";
import { prepareWrites } from "./sqlite-writes.js";
const { file, maxPageCount } = workerData;
const db = openDatabase(file);
if (maxPageCount !== void 0) db.pragma(`max_page_count = ${maxPageCount}`);
const writes = prepareWrites(db);
function settled(deleted) {
  try {
    settleDiskUse(db);
  } catch {
  }
  return deleted;
}
function apply(command) {
  switch (command.kind) {
    case "insert":
      return writes.insert(command.rows, command.traces, command.keep);
    case "lease":
      return writes.leaseTokens(command.count);
    case "purge": {
      const deleted = writes.purge(command.before, command.keep, command.lease);
      return deleted === void 0 ? deleted : settled(deleted);
    }
    case "release-retention":
      return writes.releaseRetention(command.holder);
    case "clear":
      return settled(writes.clear());
    case "close":
      db.close();
      return null;
  }
}
parentPort.on("message", (command) => {
  try {
    const result = apply(command);
    parentPort.postMessage({ id: command.id, result });
  } catch (error) {
    const code = error.code;
    parentPort.postMessage({ id: command.id, error: error.message, code: typeof code === "string" ? code : void 0 });
  }
  if (command.kind === "close") parentPort.close();
});
//# sourceMappingURL=sqlite-write-thread.js.map
