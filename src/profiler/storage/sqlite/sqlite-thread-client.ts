/**
 * The store's side of its threads, the write thread (`sqlite-write-thread.ts`) and the read
 * thread (`sqlite-read-thread.ts`): starts one, sends it commands, and hands each reply to its caller.
 */
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ReadCommand, ReadThreadData } from './sqlite-read-thread.js';
import type { WriteCommand, WriteReply, WriteThreadData } from './sqlite-write-thread.js';

export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** What either thread answers: a result, or a failure with its code (`SQLITE_FULL`, FILE_LOST...) when it has one. */
type ThreadReply = WriteReply;

// The threads' modules sit beside this one, as .ts under tsx and as .js once compiled.
const threadModule = (name: string) => new URL(`./${name}${extname(import.meta.url)}`, import.meta.url);

/** A thread holds a batch, or a page of results, at a time: a small heap keeps the process's footprint down. */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/**
 * A worker thread on Node 20 does not inherit the `--import tsx` loader, so under tsx the
 * thread starts from a line of script that loads its TypeScript module through tsx's API.
 */
function startThread(module: URL, workerData: unknown): Worker {
  if (!module.pathname.endsWith('.ts')) return new Worker(module, { workerData, resourceLimits: THREAD_LIMITS });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(module.href)}, ${JSON.stringify(module.href)}))`;
  return new Worker(boot, { eval: true, workerData, resourceLimits: THREAD_LIMITS });
}

/** Distributes commands to a thread and its replies back to the callers. */
class StoreThread<Command extends { id: number; kind: string }> {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(module: URL, data: unknown, name: string) {
    this.worker = startThread(module, data);
    // The thread lives until close(), which every owner of a store calls.
    this.worker.on('message', (reply: ThreadReply) => {
      const caller = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) caller?.reject(Object.assign(new Error(reply.error), { code: reply.code }));
      else caller?.resolve(reply.result);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.fail(new Error(`The report store's ${name} thread has stopped`));
        resolve();
      }),
    );
  }

  send<T>(command: WithoutId<Command>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...command, id });
    });
  }

  async close(): Promise<void> {
    await this.send({ kind: 'close' } as WithoutId<Command>).catch(() => undefined);
    await this.exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const caller of this.waiting.values()) caller.reject(error);
    this.waiting.clear();
  }
}

export class WriteThread extends StoreThread<WriteCommand> {
  constructor(data: WriteThreadData) {
    super(threadModule('sqlite-write-thread'), data, 'write');
  }
}

export class ReadThread extends StoreThread<ReadCommand> {
  constructor(data: ReadThreadData) {
    super(threadModule('sqlite-read-thread'), data, 'read');
  }
}
