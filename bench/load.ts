/** Drives load at a URL with wrk when it is installed, otherwise with autocannon (from npm). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

const run = promisify(execFile);

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** The longest wait for one response. */
  maxMs: number;
  /** Responses received. */
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
}

/** The headers of the seed's request, which every target is asked with. */
export const SEED_HEADERS = { accept: '*/*', 'accept-encoding': 'gzip, br, zstd, deflate' };

/** The median of the rounds: on a shared machine one disturbed round cannot move it. */
export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
  headers: Record<string, string>;
  /**
   * Paths each connection asks in turn, instead of the URL's own (autocannon; wrk asks the
   * URL's path only).
   */
  paths?: readonly string[] | undefined;
}

let wrkAvailable: boolean | undefined;

export async function loader(): Promise<'wrk' | 'autocannon'> {
  if (wrkAvailable === undefined) {
    wrkAvailable = await run('wrk', ['--version']).then(
      () => true,
      (error: { stdout?: string; code?: unknown }) => typeof error.stdout === 'string' && error.stdout.includes('wrk'),
    );
  }
  return wrkAvailable ? 'wrk' : 'autocannon';
}

export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  return (await loader()) === 'wrk' ? loadWithWrk(url, options) : loadWithAutocannon(url, options);
}

async function loadWithWrk(url: string, { seconds, connections, headers }: LoadOptions): Promise<LoadResult> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('wrk', [...args, url], { maxBuffer: 1 << 20 });
  const number = (pattern: RegExp) => {
    const match = pattern.exec(stdout);
    if (!match) throw new Error(`unexpected wrk output:\n${stdout}`);
    return match;
  };
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    rps: Number(number(/Requests\/sec:\s+([\d.]+)/)[1]),
    p50Ms: toMs(number(/\s50%\s+([\d.]+)(us|ms|s)/)),
    p99Ms: toMs(number(/\s99%\s+([\d.]+)(us|ms|s)/)),
    maxMs: toMs(number(/Latency\s+[\d.]+(?:us|ms|s)\s+[\d.]+(?:us|ms|s)\s+([\d.]+)(us|ms|s)/)),
    requests: Number(number(/(\d+) requests in/)[1]),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

function toMs([, value, unit]: RegExpExecArray): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

async function loadWithAutocannon(
  url: string,
  { seconds, connections, headers, paths }: LoadOptions,
): Promise<LoadResult> {
  const requests = paths?.map((path) => ({ method: 'GET' as const, path }));
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    ...(requests ? { requests } : {}),
    tlsOptions: { rejectUnauthorized: false },
  } as autocannon.Options);
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
  };
}
