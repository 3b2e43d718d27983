/** Opens the report store's SQLite file with the settings every connection to it uses. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { boundDiskUse } from './sqlite-disk.js';
import { prepareSchema } from './sqlite-schema.js';

export function openDatabase(file: string): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // Lets a new file give freed pages back (sqlite-disk.ts); it must precede WAL, which writes the header.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Reads and the write thread share the file; a writer's lock is waited for, not failed on.
  db.pragma('busy_timeout = 5000');
  boundDiskUse(db);
  prepareSchema(db);
  return db;
}
