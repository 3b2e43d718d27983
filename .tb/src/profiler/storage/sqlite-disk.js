const WAL_CHECKPOINT_PAGES = 128;
const WAL_SIZE_LIMIT = 512 * 1024;
const FREE_PAGES_KEPT = 256;
function boundDiskUse(db) {
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
}
function settleDiskUse(db) {
  const free = db.pragma("freelist_count", { simple: true });
  const pages = db.pragma("page_count", { simple: true });
  if (free > FREE_PAGES_KEPT && free > pages / 4) db.pragma("incremental_vacuum");
  db.pragma("wal_checkpoint(TRUNCATE)");
}
export {
  WAL_CHECKPOINT_PAGES,
  WAL_SIZE_LIMIT,
  boundDiskUse,
  settleDiskUse
};
//# sourceMappingURL=sqlite-disk.js.map
