/**
 * The kernel in this process, without a listener: requests go through Fastify's
 * `inject` (real request and reply objects, every hook), for tests that look inside the
 * profiler. Log lines are kept in `logLines` instead of going to stdout.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKernel, type Kernel, type KernelOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { Report } from '../../src/profiler/model/report.js';
import { tokenOf } from './answers.js';

export interface TestKernel extends Kernel {
  varDir: string;
  logLines: string[];
  /** The stored report of a token, after writing what is queued. */
  report(token: string): Promise<Report>;
  close(): Promise<void>;
}

export async function startKernel(
  env: Record<string, string> = {},
  options: Omit<KernelOptions, 'config'> = {},
): Promise<TestKernel> {
  const varDir = env.VAR_DIR ?? mkdtempSync(join(tmpdir(), 'vigil-kernel-'));
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'warn', ...env, VAR_DIR: varDir });
  const logLines: string[] = [];
  const kernel = await createKernel({
    config,
    logOutput: { write: (line: string) => logLines.push(line) },
    ...options,
  });
  await kernel.app.ready();
  return {
    ...kernel,
    varDir,
    logLines,
    async report(token) {
      await kernel.profiler!.writer.flush();
      const report = await kernel.profiler!.store.read(token);
      if (!report) throw new Error(`no report stored under ${token}`);
      return report;
    },
    close: () => kernel.app.close(),
  };
}

/**
 * `count` requests, `concurrency` at a time, each kernel in turn; the tokens in answer order.
 * Each request waits for the event loop's next turn, as one from a socket does: `inject`
 * alone answers a GET within one turn, so lanes of them would hold the loop for seconds,
 * and a store's connection (its timers due first) would time out with its answer unread.
 */
export async function askInTurn(
  kernels: TestKernel[],
  count: number,
  concurrency: number,
  path: (i: number) => string,
): Promise<string[]> {
  const tokens: string[] = [];
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) {
      await new Promise((resolve) => setImmediate(resolve));
      tokens.push(tokenOf(await kernels[i % kernels.length]!.app.inject({ url: path(i) })));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return tokens;
}
