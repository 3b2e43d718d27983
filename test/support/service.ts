/**
 * Starts the real service (`src/main.ts`) in a child process on a free port, the way
 * `npm start` does, and talks to it over real HTTPS sockets, trusting the certificate
 * the service created for itself. Tests that need no process of its own (no signal, no
 * memory, no exit) start it in their own process: `in-process-service.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request as httpsRequest, type Agent, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { createSecureContext, type SecureContext } from 'node:tls';
import { residentBytes as readResidentBytes } from '../../src/limits/isolation/memory-meter.js';
import { sharedCertificate } from './certificate.js';
import { runNode, type Run } from './command-line.js';
import { builtFile } from './kernel-build.js';
import { ROOT } from './root.js';

export { ROOT };

export interface Service {
  url: string;
  port: number;
  /** The service process, for reading its memory and its worker processes from /proc. */
  pid: number;
  varDir: string;
  ca: string | undefined;
  output: () => string;
  stop(): Promise<void>;
  /** Sends a signal to the service process (SIGTERM, SIGINT). */
  signal(name: NodeJS.Signals): void;
  /** Sends a signal to the service's whole process group (a terminal's Ctrl-C, systemd's stop); needs `processGroup`. */
  signalGroup(name: NodeJS.Signals): void;
  /** Resolves when the process has exited, with its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The service a test file runs against: started by `start` before the file's tests and
 * stopped after them. The function returned gives it once started.
 */
export function serviceForTests(start: () => Promise<Service>): () => Service {
  let service: Service | undefined;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());
  return () => {
    if (service === undefined) throw new Error('The service is asked for before it started.');
    return service;
  };
}

export interface StartOptions {
  /** Let the service create its own certificate in VAR_DIR instead of the run's shared one. */
  ownCertificate?: boolean;
  /**
   * Files the service process may grow to, in KiB (`ulimit -S -f`): a disk with no room for
   * its store or certificate. A soft limit, so that `prlimit` can lift it while it runs.
   */
  fileSizeLimitKiB?: number;
  /** Start the service as the leader of a process group of its own, for `signalGroup`. */
  processGroup?: boolean;
  /** The process's open-file limit (`ulimit -n`), to run it out of file descriptors. */
  openFileLimit?: number;
}

/**
 * A test service's settings: a free port on localhost, a VAR_DIR of its own, warnings only,
 * the run's shared certificate (unless `ownCertificate`, plain HTTP or a certificate of the
 * test's), then the test's own settings. Also where its certificate is, for the client.
 */
export async function serviceSettings(
  env: Record<string, string>,
  { ownCertificate = false }: StartOptions = {},
): Promise<{ settings: Record<string, string>; varDir: string; certificateFile: string }> {
  const varDir = env.VAR_DIR ?? mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const certificate: Record<string, string> =
    ownCertificate || env.TLS === '0' || env.TLS_CERT ? {} : { ...(await sharedCertificate()) };
  // One isolated worker unless a test asks for more: each is a process of its own to boot.
  const settings: Record<string, string> = {
    HOST: 'localhost',
    PORT: '0',
    VAR_DIR: varDir,
    LOG_LEVEL: 'warn',
    ISOLATED_WORKERS: '1',
    ...certificate,
    ...env,
  };
  return { settings, varDir, certificateFile: settings.TLS_CERT ?? join(varDir, 'tls', 'localhost.crt') };
}

export async function startService(env: Record<string, string> = {}, options: StartOptions = {}): Promise<Service> {
  const { settings, varDir, certificateFile } = await serviceSettings(env, options);
  const { command, routes } = kernelCommand(env.ROUTES, true);
  // Limits a shell sets before it becomes the service: the file size (a full disk), open files.
  const ulimits = [
    ...(options.fileSizeLimitKiB === undefined ? [] : [`ulimit -S -f ${options.fileSizeLimitKiB}`]),
    ...(options.openFileLimit === undefined ? [] : [`ulimit -n ${options.openFileLimit}`]),
  ];
  const limited = ulimits.length === 0 ? [] : ['bash', '-c', `${ulimits.join(' && ')} && exec "$0" "$@"`];
  const [program, ...args] = [...limited, process.execPath, ...command];
  const child = spawn(program!, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...settings, ...routes },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup ?? false,
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise({ code, signal }));
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), 30_000);
    child.stdout!.on('data', () => {
      const match = /vigil listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
  const tls = url.startsWith('https:');
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    varDir,
    // A certificate the service could not write (no room) is not there to trust.
    ca: tls && existsSync(certificateFile) ? readFileSync(certificateFile, 'utf8') || undefined : undefined,
    output: () => output,
    stop: () => stopChild(child),
    signal: (name) => child.kill(name),
    signalGroup: (name) => process.kill(-child.pid!, name),
    exited,
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

/**
 * How to run the kernel: its JavaScript build (about half the CPU to boot) when the routes
 * module has a built counterpart, which then replaces ROUTES; `tsx` otherwise, or when the
 * test reads messages that name the routes module (`mapRoutes` false).
 */
function kernelCommand(
  routes: string | undefined,
  mapRoutes: boolean,
): { command: string[]; routes: Record<string, string> } {
  const builtRoutes = routes === undefined ? undefined : builtFile(routes);
  if (routes === undefined || (mapRoutes && builtRoutes !== undefined)) {
    const main = builtFile('src/main.ts')!;
    return {
      command: ['--enable-source-maps', main],
      routes: builtRoutes === undefined ? {} : { ROUTES: builtRoutes },
    };
  }
  return { command: ['--import', 'tsx', 'src/main.ts'], routes: {} };
}

/**
 * Runs the kernel to its end (for starts that must fail); resolves with exit code and output.
 * `user`: the uid and gid to run it as (root sees no permission denied).
 */
export function runMain(
  env: Record<string, string>,
  args: string[] = [],
  user: { uid?: number; gid?: number } = {},
): Promise<Run> {
  const { command } = kernelCommand(env.ROUTES, false);
  return runNode([...command, ...args], { HOST: 'localhost', PORT: '0', ...env }, user);
}

export interface Answer {
  status: number;
  /** Header values by lower-case name (repeated headers joined by ", " as Node does). */
  headers: Record<string, string | string[] | undefined>;
  /** Header names exactly as they came over the wire. */
  rawHeaderNames: string[];
  body: string;
}

export interface Ask {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A keep-alive agent to reuse connections; by default each request has its own. */
  agent?: Agent;
  /** Fails the request when no answer has come by then. */
  timeoutMs?: number;
}

/**
 * The TLS context trusting one certificate, made once: a context per connection parses the
 * certificate again each time, the largest part of a fresh connection's CPU in this process.
 */
const trusting = new Map<string, SecureContext>();
function trustingContext(ca: string): SecureContext {
  let context = trusting.get(ca);
  if (context === undefined) trusting.set(ca, (context = createSecureContext({ ca })));
  return context;
}

/**
 * The last TLS session each service gave, by URL: a fresh connection resumes it, as a
 * browser would, and skips the certificate's signature and check (about 2 ms of CPU per
 * connection, both ends together). A session the server no longer knows costs a full
 * handshake, nothing more.
 */
const sessions = new Map<string, Buffer>();

/** One request on a fresh connection (unless an agent is given); the body is read whole. */
export function ask(
  service: Pick<Service, 'url' | 'ca'>,
  { method = 'GET', path, headers = {}, body, agent, timeoutMs }: Ask,
): Promise<Answer> {
  const base = new URL(service.url);
  const options: RequestOptions = {
    method,
    host: base.hostname,
    port: base.port,
    path,
    headers,
    // An agent pools connections by their options, `ca` among them: it keeps its own.
    ...(agent === undefined && service.ca !== undefined
      ? { secureContext: trustingContext(service.ca), session: sessions.get(service.url) }
      : { ca: service.ca }),
    servername: base.hostname,
    agent: agent ?? false,
  };
  return new Promise((resolvePromise, reject) => {
    const req = (base.protocol === 'https:' ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolvePromise({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaderNames: res.rawHeaders.filter((_, i) => i % 2 === 0),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    if (agent === undefined && service.ca !== undefined)
      req.once('socket', (socket) => socket.on('session', (session: Buffer) => sessions.set(service.url, session)));
    req.on('error', reject);
    if (timeoutMs !== undefined)
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.end(body);
  });
}

/** Resident memory of a process in bytes, from /proc/<pid>/status (VmRSS). */
export function residentBytes(pid: number): number {
  const bytes = readResidentBytes(pid);
  if (bytes === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return bytes;
}

/** The processes `pid` started (Linux's /proc/<pid>/task/<pid>/children). */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The WORKERS processes of the primary `pid` (the processes it forked to serve, not isolated-route workers). */
export function clusterWorkerPids(pid: number): number[] {
  return childPids(pid).filter((child) => {
    try {
      return /\bmain\.[jt]s\b/.test(readFileSync(`/proc/${child}/cmdline`, 'latin1'));
    } catch {
      return false; // gone in the meantime
    }
  });
}

/** The isolated-route worker processes of the service `pid`. */
export function workerPids(pid: number): number[] {
  return childPids(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'latin1').includes('worker-process');
    } catch {
      return false; // gone in the meantime
    }
  });
}
