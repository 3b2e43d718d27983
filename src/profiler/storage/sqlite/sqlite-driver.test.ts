import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isNoRoom } from './sqlite-faults.js';
import { openSqlite, sqliteDriver, type SqliteDatabase } from './sqlite-driver.js';

const newFile = () => join(mkdtempSync(join(tmpdir(), 'vigil-driver-')), 'test.sqlite');
// The versions CI runs: 22 and 24 have node:sqlite, 20 has not.
const hasNodeSqlite = Number(process.versions.node.split('.')[0]) >= 22;

function withDatabase<T>(use: (db: SqliteDatabase, file: string) => T): T {
  const file = newFile();
  const db = openSqlite(file);
  try {
    return use(db, file);
  } finally {
    db.close();
  }
}

const codeOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  assert.fail('expected an error');
};

describe('the store uses node:sqlite where Node has it, and better-sqlite3 otherwise', () => {
  it('names the driver of this Node', () => {
    assert.equal(sqliteDriver(), hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
  });

  it('prints no experimental warning when it loads node:sqlite', () => {
    const driver = pathToFileURL(join(import.meta.dirname, 'sqlite-driver.js')).href;
    const script = `const { openSqlite } = await import(${JSON.stringify(driver)}); openSqlite(':memory:').close();`;
    const stderr = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(stderr, '');
  });
});

describe('statements read rows, first columns and counts of changes', () => {
  it('gets, lists and plucks rows; runs writes with their count', () => {
    withDatabase((db) => {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, key BLOB)');
      const insert = db.prepare('INSERT INTO t (name, key) VALUES (?, ?)');
      assert.equal(insert.run('a', Buffer.from([1, 2])).changes, 1);
      assert.equal(insert.run('b', null).changes, 1);
      assert.deepEqual(
        { ...(db.prepare('SELECT id, name FROM t WHERE name = ?').get('b') as object) },
        { id: 2, name: 'b' },
      );
      assert.equal(db.prepare('SELECT id FROM t WHERE name = ?').get('none'), undefined);
      assert.deepEqual(db.prepare('SELECT name FROM t ORDER BY id').pluck().all(), ['a', 'b']);
      assert.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 2);
      const key = db.prepare('SELECT key FROM t WHERE id = 1').pluck().get() as Uint8Array;
      assert.ok(key instanceof Uint8Array);
      assert.deepEqual([...key], [1, 2]);
      assert.equal(db.prepare('DELETE FROM t').run().changes, 2);
    });
  });

  it('reads and sets pragmas, whole or as one value', () => {
    withDatabase((db) => {
      assert.equal(db.pragma('journal_mode = WAL', { simple: true }), 'wal');
      db.pragma('user_version = 7');
      assert.equal(db.pragma('user_version', { simple: true }), 7);
      assert.deepEqual(
        (db.pragma('quick_check(1)') as object[]).map((row) => ({ ...row })),
        [{ quick_check: 'ok' }],
      );
    });
  });

  it('opens read-only a file that must exist', () => {
    const file = newFile();
    assert.equal(
      codeOf(() => openSqlite(file, { readonly: true, fileMustExist: true })),
      'SQLITE_CANTOPEN',
    );
    openSqlite(file).close();
    const db = openSqlite(file, { readonly: true, fileMustExist: true });
    try {
      assert.match(String(codeOf(() => db.exec('CREATE TABLE t (a)'))), /^SQLITE_READONLY/);
    } finally {
      db.close();
    }
  });
});

describe('a transaction commits what its function did, or nothing when it throws', () => {
  it('commits, rolls back, and takes the write lock first when immediate', () => {
    withDatabase((db, file) => {
      db.exec('CREATE TABLE t (a INTEGER)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      const count = db.prepare('SELECT count(*) FROM t').pluck();
      const add = db.transaction((values: number[]) => {
        for (const value of values) insert.run(value);
        if (values.includes(-1)) throw new Error('refused');
        return values.length;
      });
      assert.equal(add([1, 2]), 2);
      assert.throws(() => add([3, -1]), /refused/);
      assert.equal(count.get(), 2);
      assert.equal(db.inTransaction, false);

      const other = openSqlite(file);
      try {
        other.pragma('busy_timeout = 0');
        let seen: unknown;
        db.transaction(() => {
          seen = codeOf(() => other.exec('BEGIN IMMEDIATE'));
        }).immediate();
        assert.match(String(seen), /^SQLITE_BUSY/);
      } finally {
        other.close();
      }
    });
  });

  it('nests as a savepoint', () => {
    withDatabase((db) => {
      db.exec('CREATE TABLE t (a INTEGER)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      const inner = db.transaction(() => {
        insert.run(2);
        throw new Error('inner');
      });
      db.transaction(() => {
        insert.run(1);
        assert.throws(() => inner(), /inner/);
      })();
      assert.deepEqual(db.prepare('SELECT a FROM t').pluck().all(), [1]);
    });
  });
});

describe("errors carry SQLite's code, as sqlite-faults.ts tells them apart", () => {
  it('a unique constraint', () => {
    withDatabase((db) => {
      db.exec('CREATE TABLE t (a TEXT UNIQUE)');
      db.prepare('INSERT INTO t VALUES (?)').run('x');
      const error = (() => {
        try {
          db.prepare('INSERT INTO t VALUES (?)').run('x');
        } catch (caught) {
          return caught as Error & { code: string };
        }
      })();
      assert.equal(error?.code, 'SQLITE_CONSTRAINT_UNIQUE');
      assert.match(error!.message, /UNIQUE constraint failed: t\.a/);
    });
  });

  it('a file that is not a database', () => {
    const file = newFile();
    writeFileSync(file, Buffer.alloc(8192, 7));
    assert.equal(
      codeOf(() => {
        const db = openSqlite(file, { readonly: true, fileMustExist: true });
        try {
          db.pragma('quick_check(1)', { simple: true });
        } finally {
          db.close();
        }
      }),
      'SQLITE_NOTADB',
    );
  });

  it('a full disk, as the store reports it', () => {
    withDatabase((db) => {
      db.exec('CREATE TABLE t (a TEXT)');
      db.pragma('max_page_count = 2');
      let error: unknown;
      try {
        db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
      } catch (caught) {
        error = caught;
      }
      assert.equal((error as { code?: unknown }).code, 'SQLITE_FULL');
      assert.equal(isNoRoom(error), true);
    });
  });

  it('a syntax error', () => {
    withDatabase((db) => {
      assert.equal(
        codeOf(() => db.prepare('SELECTX 1')),
        'SQLITE_ERROR',
      );
    });
  });
});
