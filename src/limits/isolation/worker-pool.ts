/**
 * The pool of worker processes that run isolated routes, a whole process per job: over MEMORY_LIMIT
 * (resident memory, read from outside while the handler may be busy), at MAX_EXECUTION_TIME or when
 * the client goes away, the process is killed and replaced; the others go on.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../errors/http-errors.js';
import { ExecutionTimeExceededError, MemoryExhaustedError } from '../limit-errors.js';
import { residentBytes } from './memory-meter.js';
import { reviveError, type FromWorker, type IsolatedInput, type ToWorker } from './protocol.js';

interface WorkerPoolOptions {
  /** Absolute path of the routes module the workers import. */
  routesModule: string;
  /** Names of the isolated routes the kernel declared; every worker must find them all. */
  routes: readonly string[];
  size: number;
  /** Bytes one job may add to its process; Infinity for none. */
  memoryLimit: number;
  log: FastifyBaseLogger;
}

interface JobOptions {
  /** 0: no limit. Counted from the call, time in the queue included. */
  timeLimitSeconds: number;
  log: FastifyBaseLogger;
}

/** How often a busy worker's resident memory is read. */
const MEMORY_POLL_MS = 10;
/** The worker's own V8 heap cap sits this far above MEMORY_LIMIT: a backstop, the meter acts first. */
const HEAP_HEADROOM_MB = 64;
const START_TIMEOUT_MS = 30_000;

const WORKER_ENTRY = fileURLToPath(
  new URL(`./worker-process${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

interface Job {
  id: number;
  route: string;
  input: IsolatedInput;
  options: JobOptions;
  resolve(value: unknown): void;
  reject(error: Error): void;
  settled: boolean;
  worker?: Worker;
}

interface Worker {
  child: ChildProcess;
  /** Started and not running or settling a job: can take the next one. */
  ready: boolean;
  /** It once reported ready: its exit is replaced, not a failed start. */
  started: boolean;
  job: Job | undefined;
  /** Resident bytes when it became ready: its own weight, not counted against jobs. */
  idleBytes: number | undefined;
  /** Resident bytes when the current job started. */
  jobBaseline: number | undefined;
  meter: NodeJS.Timeout | undefined;
  stderrTail: string;
}

export class WorkerPool {
  private readonly workers = new Set<Worker>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closing = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Starts every worker; rejects when one cannot load the routes module or lacks a route. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.size }, () => this.spawn()));
  }

  /** Runs the isolated route `route` with `input` and resolves with what its handler returned. */
  run(
    route: string,
    input: IsolatedInput,
    options: JobOptions,
  ): { result: Promise<unknown>; cancel(reason: Error): void } {
    let job!: Job;
    const result = new Promise<unknown>((resolve, reject) => {
      job = { id: this.nextId++, route, input, options, resolve, reject, settled: false };
    });
    if (this.closing) {
      this.settle(job, new HttpError('VIGIL_ERR_STOPPING', 'The service is stopping'));
      return { result, cancel: () => undefined };
    }
    let timer: NodeJS.Timeout | undefined;
    if (options.timeLimitSeconds > 0) {
      timer = setTimeout(
        () => this.fail(job, new ExecutionTimeExceededError(options.timeLimitSeconds)),
        options.timeLimitSeconds * 1000,
      );
    }
    void result.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    this.queue.push(job);
    this.dispatch();
    return { result, cancel: (reason) => this.fail(job, reason) };
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const job of this.queue.splice(0))
      this.settle(job, new HttpError('VIGIL_ERR_STOPPING', 'The service is stopping'));
    await Promise.all([...this.workers].map((worker) => this.kill(worker)));
  }

  private spawn(): Promise<void> {
    const { memoryLimit } = this.options;
    const execArgv = [
      ...process.execArgv.filter((argument) => !argument.startsWith('--max-old-space-size')),
      '--expose-gc',
    ];
    if (Number.isFinite(memoryLimit))
      execArgv.push(`--max-old-space-size=${Math.ceil(memoryLimit / 1024 / 1024) + HEAP_HEADROOM_MB}`);
    const child = fork(WORKER_ENTRY, [this.options.routesModule, String(memoryLimit)], {
      execArgv,
      // glibc: large blocks (Buffers) come from mmap and go back to the system when freed,
      // so a worker's resident size falls back after a request instead of staying high.
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const worker: Worker = {
      child,
      ready: false,
      started: false,
      job: undefined,
      idleBytes: undefined,
      jobBaseline: undefined,
      meter: undefined,
      stderrTail: '',
    };
    this.workers.add(worker);
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      worker.stderrTail = (worker.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`an isolated worker did not start within ${START_TIMEOUT_MS} ms`));
        void this.kill(worker);
      }, START_TIMEOUT_MS);
      child.on('message', (message: FromWorker) => {
        if (message.type !== 'ready') return this.onMessage(worker, message);
        clearTimeout(timer);
        const missing = this.options.routes.filter((name) => !message.routes.includes(name));
        if (missing.length > 0) {
          reject(
            new Error(
              `the isolated worker found no route named ${missing.map((name) => `"${name}"`).join(', ')} in ${this.options.routesModule}`,
            ),
          );
          void this.kill(worker);
          return;
        }
        worker.ready = true;
        worker.started = true;
        worker.idleBytes = residentBytes(child.pid!);
        resolve();
        this.dispatch();
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!worker.started)
          reject(
            new Error(
              `an isolated worker exited while starting (${signal ?? `code ${code}`}): ${worker.stderrTail.trim()}`,
            ),
          );
        this.onExit(worker, code, signal);
      });
    });
  }

  private dispatch(): void {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (!worker.ready) continue;
      const job = this.queue.shift()!;
      job.worker = worker;
      worker.job = job;
      worker.ready = false;
      worker.jobBaseline = residentBytes(worker.child.pid!);
      if (Number.isFinite(this.options.memoryLimit))
        worker.meter = setInterval(() => this.measure(worker), MEMORY_POLL_MS);
      try {
        worker.child.send({ type: 'run', id: job.id, route: job.route, input: job.input } satisfies ToWorker);
      } catch (error) {
        // V8's serializer refused the input (too deep: a stack overflow; or not data): the
        // worker never saw the job and takes the next one.
        this.release(worker);
        worker.ready = true;
        this.settle(
          job,
          new HttpError(
            'VIGIL_ERR_ISOLATION_INPUT',
            `The request could not be copied to its isolated worker: ${(error as Error).message}`,
            { cause: error },
          ),
        );
        queueMicrotask(() => this.dispatch());
      }
    }
  }

  private measure(worker: Worker): void {
    const bytes = residentBytes(worker.child.pid!);
    if (bytes === undefined || worker.jobBaseline === undefined || !worker.job) return;
    if (bytes - worker.jobBaseline > this.options.memoryLimit)
      this.fail(worker.job, new MemoryExhaustedError(this.options.memoryLimit));
  }

  private onMessage(worker: Worker, message: FromWorker): void {
    if (message.type === 'settled') return this.reuse(worker);
    const job = worker.job;
    if (!job || message.type === 'ready' || message.id !== job.id) return;
    // The answer may come between two readings: what the job holds now counts too.
    if (message.type === 'result' || message.type === 'error') this.measure(worker);
    if (job.settled) return;
    switch (message.type) {
      case 'result':
        this.finish(
          worker,
          job,
          message.value instanceof Uint8Array && !Buffer.isBuffer(message.value)
            ? Buffer.from(message.value)
            : message.value,
        );
        break;
      case 'error':
        this.finish(worker, job, reviveError(message.error));
        break;
      case 'memory':
        this.fail(job, new MemoryExhaustedError(this.options.memoryLimit));
        break;
      case 'log':
        job.options.log[message.level](message.details ?? {}, message.message);
        break;
    }
  }

  /** The job ended in its worker; the worker is reused once it has settled. */
  private finish(worker: Worker, job: Job, outcome: unknown): void {
    this.release(worker);
    this.settle(job, outcome);
  }

  /**
   * A job's baseline is the worker's size when it starts: memory a previous job left
   * resident would be free for the next one to reuse unseen. So a worker that stays more
   * than a quarter of the limit above its idle size after collecting is replaced instead.
   */
  private reuse(worker: Worker): void {
    if (worker.job || !worker.started || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    const bytes = residentBytes(worker.child.pid!);
    if (
      bytes !== undefined &&
      worker.idleBytes !== undefined &&
      bytes - worker.idleBytes > this.options.memoryLimit / 4
    ) {
      void this.kill(worker); // replaced on exit
      return;
    }
    worker.ready = true;
    this.dispatch();
  }

  /** Stops a job from outside (memory, deadline, client gone): its worker is killed and replaced. */
  private fail(job: Job, reason: Error): void {
    if (job.settled) return;
    const worker = job.worker;
    if (worker) {
      this.release(worker);
      void this.kill(worker);
    } else {
      this.queue.splice(this.queue.indexOf(job), 1);
    }
    this.settle(job, reason);
  }

  private release(worker: Worker): void {
    clearInterval(worker.meter);
    worker.meter = undefined;
    worker.job = undefined;
  }

  private settle(job: Job, outcome: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }

  private kill(worker: Worker): Promise<void> {
    worker.ready = false;
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      worker.child.once('exit', () => resolve());
      worker.child.kill('SIGKILL');
    });
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.workers.delete(worker);
    const job = worker.job;
    this.release(worker);
    if (job) {
      // Killed by V8 at its heap cap, before the meter saw it: still the memory limit.
      const outOfHeap = /heap out of memory|Reached heap limit/i.test(worker.stderrTail);
      this.settle(
        job,
        outOfHeap
          ? new MemoryExhaustedError(this.options.memoryLimit)
          : new Error(`The isolated worker stopped unexpectedly (${signal ?? `exit code ${code}`})`),
      );
    }
    // A worker that never started is the start's failure, reported there; others are replaced.
    if (!this.closing && worker.started) {
      this.spawn().catch((error: unknown) =>
        this.options.log.error({ err: error }, 'could not replace an isolated worker'),
      );
    }
  }
}
