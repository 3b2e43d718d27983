import { TokenPermutation } from "../../debug/token-permutation.js";
import { CREATE_COUNTER, newTokenKey } from "./sqlite-schema.js";
function isReportError(error) {
  return /^SQLITE_(TOOBIG|CONSTRAINT|MISMATCH)/.test(String(error.code));
}
function prepareWrites(db) {
  const insertReport = db.prepare(
    `INSERT INTO reports (token, time, method, url, status, ip, duration, data, trace)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING`
  );
  const insertTrace = db.prepare("INSERT INTO traces (hash, json) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING");
  const oldest = db.prepare("DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time, id LIMIT ?)");
  const orphanTraces = db.prepare("DELETE FROM traces WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.trace = traces.hash)");
  const reports = reportCount(db);
  const insert = db.transaction((rows, traces, keep) => {
    const outcome = { rejected: [], failed: [], deleted: 0 };
    const makeRoom = (incoming) => {
      const surplus2 = keep === void 0 ? 0 : reports.current() + incoming - keep;
      if (surplus2 <= 0) return;
      const deleted = oldest.run(surplus2).changes;
      reports.changed(-deleted);
      outcome.deleted += deleted;
    };
    makeRoom(rows.length);
    for (const trace of traces) insertTrace.run(trace.hash, trace.json);
    for (const row of rows) {
      try {
        if (insertReport.run(...row).changes === 0) outcome.rejected.push(row[0]);
        else reports.changed(1);
      } catch (error) {
        if (!isReportError(error)) throw error;
        outcome.failed.push({ token: row[0], message: error.message });
      }
    }
    makeRoom(0);
    if (outcome.deleted > 0) orphanTraces.run();
    return outcome;
  });
  const readCounter = db.prepare("SELECT next, key FROM token_counter WHERE id = 1");
  const createCounter = db.prepare(CREATE_COUNTER);
  const advanceCounter = db.prepare("UPDATE token_counter SET next = next + ? WHERE id = 1");
  const storedTokens = db.prepare("SELECT token FROM reports WHERE token IN (SELECT value FROM json_each(?))").pluck();
  let permutation;
  const leaseTokens = db.transaction((count) => {
    let counter = readCounter.get();
    if (!counter) {
      createCounter.run(newTokenKey());
      counter = readCounter.get();
    }
    advanceCounter.run(count);
    if (!permutation?.key.equals(counter.key)) permutation = { key: counter.key, of: new TokenPermutation(counter.key) };
    const tokens = Array.from({ length: count }, (_, i) => permutation.of.token(counter.next + i));
    const taken = new Set(storedTokens.all(JSON.stringify(tokens)));
    return taken.size === 0 ? tokens : tokens.filter((token) => !taken.has(token));
  });
  const readLease = db.prepare("SELECT holder, expires FROM retention_lease WHERE id = 1");
  const takeLease = db.prepare(
    "INSERT INTO retention_lease (id, holder, expires) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires"
  );
  const giveLeaseUp = db.prepare("UPDATE retention_lease SET expires = 0 WHERE id = 1 AND holder = ?");
  const expired = db.prepare("DELETE FROM reports WHERE time < ?");
  const surplus = db.prepare("DELETE FROM reports WHERE id IN (SELECT id FROM reports ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?)");
  const purge = db.transaction((before, keep, lease) => {
    if (lease) {
      const current = readLease.get();
      if (current && current.holder !== lease.holder && current.expires > lease.now) return void 0;
      takeLease.run(lease.holder, lease.now + lease.ms);
    }
    const deleted = expired.run(before).changes + surplus.run(keep).changes;
    if (deleted > 0) orphanTraces.run();
    return deleted;
  });
  const deleteAll = db.prepare("DELETE FROM reports");
  const deleteTraces = db.prepare("DELETE FROM traces");
  const clear = db.transaction(() => {
    const deleted = deleteAll.run().changes;
    deleteTraces.run();
    return deleted;
  });
  const forgetting = (write) => (...args) => {
    try {
      return write(...args);
    } catch (error) {
      reports.forget();
      throw error;
    }
  };
  const recounting = (write) => (...args) => {
    try {
      return write(...args);
    } finally {
      reports.forget();
    }
  };
  return {
    // Immediate: the count read before the deletes is then the one the deletes act on, whatever
    // another process writes meanwhile, so the store never holds more than `keep`.
    insert: forgetting(insert.immediate),
    leaseTokens: (count) => leaseTokens.immediate(count),
    purge: recounting(purge.immediate),
    releaseRetention: (holder) => void giveLeaseUp.run(holder),
    clear: recounting(clear)
  };
}
function reportCount(db) {
  const countAll = db.prepare("SELECT count(*) FROM reports").pluck();
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  let known;
  return {
    current() {
      const now = dataVersion.get();
      if (known?.version !== now) known = { reports: countAll.get(), version: now };
      return known.reports;
    },
    changed(by) {
      if (known) known.reports += by;
    },
    forget() {
      known = void 0;
    }
  };
}
export {
  prepareWrites
};
//# sourceMappingURL=sqlite-writes.js.map
