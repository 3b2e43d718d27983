/** The store's side of its write thread (`sqlite-write-thread.ts`): starts it, sends it commands, and hands each reply to its caller. */
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WriteCommand, WriteReply, WriteThreadData } from './sqlite-write-thread.js';

export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

// The thread's module sits beside this one, as .ts under tsx and as .js once compiled.
const WRITE_THREAD = new URL(`./sqlite-write-thread${extname(import.meta.url)}`, import.meta.url);

/** The thread holds a batch at a time: a small heap keeps the process's footprint down. */
const WRITE_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/**
 * A worker thread on Node 20 does not inherit the `--import tsx` loader, so under tsx the
 * thread starts from a line of script that loads its TypeScript module through tsx's API.
 */
function startWriteThread(workerData: WriteThreadData): Worker {
  if (!WRITE_THREAD.pathname.endsWith('.ts')) return new Worker(WRITE_THREAD, { workerData, resourceLimits: WRITE_THREAD_LIMITS });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(WRITE_THREAD.href)}, ${JSON.stringify(WRITE_THREAD.href)}))`;
  return new Worker(boot, { eval: true, workerData, resourceLimits: WRITE_THREAD_LIMITS });
}


/** Distributes commands to the write thread and its replies back to the callers. */
export class WriteThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(data: WriteThreadData) {
    this.worker = startWriteThread(data);
    // The thread lives until close(), which every owner of a store calls.
    this.worker.on('message', (reply: WriteReply) => {
      const caller = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) caller?.reject(Object.assign(new Error(reply.error), { code: reply.code }));
      else caller?.resolve(reply.result);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => {
      this.fail(new Error('The report store\'s write thread has stopped'));
      resolve();
    }));
  }

  send<T>(command: WithoutId<WriteCommand>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...command, id } as WriteCommand);
    });
  }

  async close(): Promise<void> {
    await this.send({ kind: 'close' }).catch(() => undefined);
    await this.exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const caller of this.waiting.values()) caller.reject(error);
    this.waiting.clear();
  }
}
