/**
 * Runs the committed `deploy/nginx.conf` in front of test instances. The file is read as it
 * is and only the values a user changes for a machine (its header lists them) are replaced:
 * listen port, certificate, instances' ports, pid, logs, workers' user; plus nginx's
 * temporary files, put in the test's directory. Every other directive runs as committed.
 * nginx runs in the foreground (`daemon off`) with its prefix in a temporary directory.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedCertificate } from '../support/certificate.js';
import { ROOT } from '../support/root.js';

export const NGINX_CONF = join(ROOT, 'deploy', 'nginx.conf');

export interface TestValues {
  /** nginx's prefix: pid file and temporary files go there. */
  dir: string;
  /** The port nginx listens on, on 127.0.0.1. */
  port: number;
  /** The instances' ports on 127.0.0.1, in the order of the file's `server` lines. */
  upstreams: readonly number[];
  certificate: string;
  key: string;
  /** The workers' user; undefined drops the `user` line (nginx ignores it unless started as root). */
  user: string | undefined;
}

/**
 * Replaces each directive `pattern` matches (a whole directive, on its own line, indentation
 * kept); the file must hold exactly `count` of them, or the test would run something else than
 * what it means to.
 */
function replaceDirective(
  text: string,
  what: string,
  pattern: RegExp,
  count: number,
  by: (index: number) => string,
): string {
  const line = new RegExp(`^([ \\t]*)${pattern.source}`, 'gm');
  const found = text.match(line)?.length ?? 0;
  if (found !== count)
    throw new Error(`deploy/nginx.conf: expected ${count} ${what} (${pattern.source}), found ${found}`);
  let index = 0;
  return text.replace(line, (_match, indent: string) => indent + by(index++));
}

/** The committed file with the test's ports, certificate and paths. */
export function renderNginxConf(source: string, values: TestValues): string {
  const { dir } = values;
  let text = source;
  text = replaceDirective(text, "workers' user", /user\s+[^;]+;/, 1, () =>
    values.user === undefined ? '# user: the test runs nginx as itself' : `user ${values.user};`,
  );
  text = replaceDirective(text, 'pid file', /pid\s+[^;]+;/, 1, () => `pid ${join(dir, 'nginx.pid')};`);
  text = replaceDirective(text, 'error log', /error_log\s+[^;]+;/, 1, () => 'error_log stderr warn;');
  text = replaceDirective(text, 'access log', /access_log\s+[^;]+;/, 1, () => `access_log ${join(dir, 'access.log')};`);
  // nginx's compiled-in temporary directories (/var/lib/nginx) belong to the system's nginx.
  text = replaceDirective(text, 'http block', /http\s*\{/, 1, () =>
    [
      'http {',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `    ${kind}_temp_path ${join(dir, kind)};`,
      ),
    ].join('\n'),
  );
  text = replaceDirective(
    text,
    'instances',
    /server\s+127\.0\.0\.1:\d+;/,
    values.upstreams.length,
    (i) => `server 127.0.0.1:${values.upstreams[i]};`,
  );
  text = replaceDirective(
    text,
    'IPv4 listen',
    /listen\s+443\s+ssl(\s+http2)?;/,
    1,
    () => `listen 127.0.0.1:${values.port} ssl http2;`,
  );
  text = replaceDirective(
    text,
    'IPv6 listen',
    /listen\s+\[::\]:443\s+ssl(\s+http2)?;/,
    1,
    () => '# IPv6 listen: the test uses 127.0.0.1',
  );
  text = replaceDirective(
    text,
    'certificate',
    /ssl_certificate\s+[^;]+;/,
    1,
    () => `ssl_certificate ${values.certificate};`,
  );
  text = replaceDirective(
    text,
    'certificate key',
    /ssl_certificate_key\s+[^;]+;/,
    1,
    () => `ssl_certificate_key ${values.key};`,
  );
  return text;
}

/** Debian installs nginx in /usr/sbin, which a user's PATH may lack. */
export function nginxBinary(): string {
  for (const directory of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin']) {
    if (directory === '') continue;
    const candidate = join(directory, 'nginx');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there
    }
  }
  throw new Error('nginx is not installed: `apt-get install -y nginx` (.ci/run does it when it is missing)');
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePromise(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

export interface Nginx {
  /** The public URL: `https://localhost:<port>`. */
  url: string;
  port: number;
  /** The certificate nginx presents, for the client to trust. */
  ca: string;
  /** The configuration nginx runs. */
  conf: string;
  output: () => string;
  stop(): Promise<void>;
}

/** nginx with deploy/nginx.conf in front of the instances listening on 127.0.0.1 at `upstreams`. */
export async function startNginx(upstreams: readonly number[]): Promise<Nginx> {
  const binary = nginxBinary();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-nginx-'));
  const { TLS_CERT, TLS_KEY } = await sharedCertificate();
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const root = process.getuid?.() === 0;
  writeFileSync(
    conf,
    renderNginxConf(readFileSync(NGINX_CONF, 'utf8'), {
      dir,
      port,
      upstreams,
      certificate: TLS_CERT,
      key: TLS_KEY,
      user: root ? userInfo().username : undefined,
    }),
  );
  const child = spawn(binary, ['-p', dir, '-c', conf, '-e', 'stderr', '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  let exited = false;
  // A test process that ends without stop() (a crash, a cancelled run) takes nginx with it.
  const orphaned = () => child.kill('SIGTERM');
  process.once('exit', orphaned);
  const gone = new Promise<void>((resolvePromise) =>
    child.once('exit', () => {
      exited = true;
      process.off('exit', orphaned);
      resolvePromise();
    }),
  );
  // nginx says nothing when it is ready: it is once it accepts connections.
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (exited) throw new Error(`nginx exited before listening:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not listen on ${port} in 15 s:\n${output}`);
    }
    await sleep(50);
  }
  return {
    url: `https://localhost:${port}`,
    port,
    ca: readFileSync(TLS_CERT, 'utf8'),
    conf,
    output: () => output,
    stop: async () => {
      if (!exited) child.kill('SIGTERM'); // fast shutdown: the master stops its workers
      await gone;
    },
  };
}
