import { fork } from "node:child_process";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { HttpError } from "../../errors/http-errors.js";
import { ExecutionTimeExceededError, MemoryExhaustedError } from "../limit-errors.js";
import { residentBytes } from "./memory-meter.js";
import { reviveError } from "./protocol.js";
const MEMORY_POLL_MS = 10;
const HEAP_HEADROOM_MB = 64;
const START_TIMEOUT_MS = 3e4;
const WORKER_ENTRY = fileURLToPath(new URL(`./worker-process${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
class WorkerPool {
  constructor(options) {
    this.options = options;
  }
  options;
  workers = /* @__PURE__ */ new Set();
  queue = [];
  nextId = 1;
  closing = false;
  /** Starts every worker; rejects when one cannot load the routes module or lacks a route. */
  async start() {
    await Promise.all(Array.from({ length: this.options.size }, () => this.spawn()));
  }
  /** Runs the isolated route `route` with `input` and resolves with what its handler returned. */
  run(route, input, options) {
    let job;
    const result = new Promise((resolve, reject) => {
      job = { id: this.nextId++, route, input, options, resolve, reject, settled: false };
    });
    if (this.closing) {
      this.settle(job, new HttpError(503, "The service is stopping", "VIGIL_ERR_STOPPING"));
      return { result, cancel: () => void 0 };
    }
    let timer;
    if (options.timeLimitSeconds > 0) {
      timer = setTimeout(() => this.fail(job, new ExecutionTimeExceededError(options.timeLimitSeconds)), options.timeLimitSeconds * 1e3);
    }
    void result.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer)
    );
    this.queue.push(job);
    this.dispatch();
    return { result, cancel: (reason) => this.fail(job, reason) };
  }
  async close() {
    this.closing = true;
    for (const job of this.queue.splice(0)) this.settle(job, new HttpError(503, "The service is stopping", "VIGIL_ERR_STOPPING"));
    await Promise.all([...this.workers].map((worker) => this.kill(worker)));
  }
  spawn() {
    const { memoryLimit } = this.options;
    const execArgv = [...process.execArgv.filter((argument) => !argument.startsWith("--max-old-space-size")), "--expose-gc"];
    if (Number.isFinite(memoryLimit)) execArgv.push(`--max-old-space-size=${Math.ceil(memoryLimit / 1024 / 1024) + HEAP_HEADROOM_MB}`);
    const child = fork(WORKER_ENTRY, [this.options.routesModule, String(memoryLimit)], {
      execArgv,
      // glibc: large blocks (Buffers) come from mmap and go back to the system when freed,
      // so a worker's resident size falls back after a request instead of staying high.
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "131072" },
      serialization: "advanced",
      stdio: ["ignore", "inherit", "pipe", "ipc"]
    });
    const worker = { child, ready: false, started: false, job: void 0, idleBytes: void 0, jobBaseline: void 0, meter: void 0, stderrTail: "" };
    this.workers.add(worker);
    child.stderr.on("data", (chunk) => {
      process.stderr.write(chunk);
      worker.stderrTail = (worker.stderrTail + chunk.toString("utf8")).slice(-4096);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`an isolated worker did not start within ${START_TIMEOUT_MS} ms`));
        void this.kill(worker);
      }, START_TIMEOUT_MS);
      child.on("message", (message) => {
        if (message.type !== "ready") return this.onMessage(worker, message);
        clearTimeout(timer);
        const missing = this.options.routes.filter((name) => !message.routes.includes(name));
        if (missing.length > 0) {
          reject(new Error(`the isolated worker found no route named ${missing.map((name) => `"${name}"`).join(", ")} in ${this.options.routesModule}`));
          void this.kill(worker);
          return;
        }
        worker.ready = true;
        worker.started = true;
        worker.idleBytes = residentBytes(child.pid);
        resolve();
        this.dispatch();
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        if (!worker.started) reject(new Error(`an isolated worker exited while starting (${signal ?? `code ${code}`}): ${worker.stderrTail.trim()}`));
        this.onExit(worker, code, signal);
      });
    });
  }
  dispatch() {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (!worker.ready) continue;
      const job = this.queue.shift();
      job.worker = worker;
      worker.job = job;
      worker.ready = false;
      worker.jobBaseline = residentBytes(worker.child.pid);
      if (Number.isFinite(this.options.memoryLimit)) worker.meter = setInterval(() => this.measure(worker), MEMORY_POLL_MS);
      try {
        worker.child.send({ type: "run", id: job.id, route: job.route, input: job.input });
      } catch (error) {
        this.release(worker);
        worker.ready = true;
        this.settle(job, new HttpError(500, `The request could not be copied to its isolated worker: ${error.message}`, "VIGIL_ERR_ISOLATION_INPUT", { cause: error }));
        queueMicrotask(() => this.dispatch());
      }
    }
  }
  measure(worker) {
    const bytes = residentBytes(worker.child.pid);
    if (bytes === void 0 || worker.jobBaseline === void 0 || !worker.job) return;
    if (bytes - worker.jobBaseline > this.options.memoryLimit) this.fail(worker.job, new MemoryExhaustedError(this.options.memoryLimit));
  }
  onMessage(worker, message) {
    if (message.type === "settled") return this.reuse(worker);
    const job = worker.job;
    if (!job || message.type === "ready" || message.id !== job.id) return;
    if (message.type === "result" || message.type === "error") this.measure(worker);
    if (job.settled) return;
    switch (message.type) {
      case "result":
        this.finish(worker, job, message.value instanceof Uint8Array && !Buffer.isBuffer(message.value) ? Buffer.from(message.value) : message.value);
        break;
      case "error":
        this.finish(worker, job, reviveError(message.error));
        break;
      case "memory":
        this.fail(job, new MemoryExhaustedError(this.options.memoryLimit));
        break;
      case "log":
        job.options.log[message.level](message.details ?? {}, message.message);
        break;
    }
  }
  /** The job ended in its worker; the worker is reused once it has settled. */
  finish(worker, job, outcome) {
    this.release(worker);
    this.settle(job, outcome);
  }
  /**
   * A job's baseline is the worker's size when it starts: memory a previous job left
   * resident would be free for the next one to reuse unseen. So a worker that stays more
   * than a quarter of the limit above its idle size after collecting is replaced instead.
   */
  reuse(worker) {
    if (worker.job || !worker.started || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    const bytes = residentBytes(worker.child.pid);
    if (bytes !== void 0 && worker.idleBytes !== void 0 && bytes - worker.idleBytes > this.options.memoryLimit / 4) {
      void this.kill(worker);
      return;
    }
    worker.ready = true;
    this.dispatch();
  }
  /** Stops a job from outside (memory, deadline, client gone): its worker is killed and replaced. */
  fail(job, reason) {
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
  release(worker) {
    clearInterval(worker.meter);
    worker.meter = void 0;
    worker.job = void 0;
  }
  settle(job, outcome) {
    if (job.settled) return;
    job.settled = true;
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }
  kill(worker) {
    worker.ready = false;
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      worker.child.once("exit", () => resolve());
      worker.child.kill("SIGKILL");
    });
  }
  onExit(worker, code, signal) {
    this.workers.delete(worker);
    const job = worker.job;
    this.release(worker);
    if (job) {
      const outOfHeap = /heap out of memory|Reached heap limit/i.test(worker.stderrTail);
      this.settle(job, outOfHeap ? new MemoryExhaustedError(this.options.memoryLimit) : new Error(`The isolated worker stopped unexpectedly (${signal ?? `exit code ${code}`})`));
    }
    if (!this.closing && worker.started) {
      this.spawn().catch((error) => this.options.log.error({ err: error }, "could not replace an isolated worker"));
    }
  }
}
export {
  MEMORY_POLL_MS,
  WorkerPool
};
//# sourceMappingURL=worker-pool.js.map
