import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, type PostgresDsn } from '../../../config/index.js';
import { PostgresReportStore } from './postgres-store.js';

// Port 1 on loopback: nothing listens there, and nothing here must get as far as trying.
const dsn = loadConfig({ PROFILER_DSN: 'postgres://vigil@127.0.0.1:1/vigil' }).profilerStore as PostgresDsn;

describe('a PostgreSQL store closed while it connects', () => {
  it('fails the call that was connecting, saying why, instead of making a pool that nothing would end', async () => {
    const store = new PostgresReportStore(dsn);
    const checking = store.exists();
    await store.close();
    await assert.rejects(checking, /the store was closed while it connected/);
  });
});
