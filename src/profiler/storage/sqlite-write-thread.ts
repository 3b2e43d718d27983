/**
 * The report store's write thread: owns the SQLite write connection and applies the
 * batches, purges and clears the store sends it, one at a time, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './sqlite-open.js';
import { prepareWrites, type ReportRow, type TraceRow } from './sqlite-writes.js';

export type WriteCommand =
  | { id: number; kind: 'insert'; rows: ReportRow[]; traces: TraceRow[] }
  | { id: number; kind: 'purge'; before: number; keep: number }
  | { id: number; kind: 'clear' }
  | { id: number; kind: 'close' };

export type WriteReply = { id: number; result: unknown } | { id: number; error: string };

const db = openDatabase((workerData as { file: string }).file);
const writes = prepareWrites(db);

function apply(command: WriteCommand): unknown {
  switch (command.kind) {
    case 'insert':
      return writes.insert(command.rows, command.traces);
    case 'purge':
      return writes.purge(command.before, command.keep);
    case 'clear':
      return writes.clear();
    case 'close':
      // Closing the connection checkpoints the WAL.
      db.close();
      return null;
  }
}

parentPort!.on('message', (command: WriteCommand) => {
  try {
    const result = apply(command);
    parentPort!.postMessage({ id: command.id, result } satisfies WriteReply);
  } catch (error) {
    parentPort!.postMessage({ id: command.id, error: (error as Error).message } satisfies WriteReply);
  }
  // With its port closed the thread has nothing left to do and ends.
  if (command.kind === 'close') parentPort!.close();
});
