/** `npm start`: reads the configuration, starts the service and prints where it answers. */
import { loadConfig, type Config } from './config.js';
import type { PrimaryLink } from './server/cluster-worker.js';
import { startFailureLine } from './server/start-failure.js';

const HELP = `vigil: an HTTPS service kernel with debug error pages and a stored report for every request.

Usage: npm start            (or: node --import tsx src/main.ts)

Settings come from the environment or a .env file:
  APP_ENV           dev (default) or prod
  APP_DEBUG         1 or 0; defaults to 1 in dev, 0 in prod
  WORKERS           processes serving the port (1); auto: one per core. Above 1, a primary
                    process starts them, replaces any that dies and stops them on SIGTERM
  HOST, PORT        where to listen (localhost, 8443)
  TLS               0 to serve plain HTTP behind a TLS-terminating proxy (default 1)
  TLS_CERT, TLS_KEY PEM files; without them a self-signed localhost certificate is created in VAR_DIR
  VAR_DIR           certificate and report store (var/)
  PROFILER_DSN      where reports are stored: sqlite:<path> (sqlite:VAR_DIR/profiler.sqlite), or
                    postgres://user:password@host:port/database, shared by instances on several machines
  PROFILER_POOL_SIZE  connections to PostgreSQL per process at most (4)
  ROUTES            a module declaring routes, e.g. examples/demo-routes.ts
  TRUSTED_PROXIES   IPs or CIDRs whose X-Forwarded-* headers are believed
  TRUSTED_HOSTS     regular expressions of the hosts answered; others get a 400 (default: any)
  LOG_LEVEL         fatal, error, warn, info (default), debug, trace or silent
  CORS_ALLOW_ORIGIN regular expression of the origins browsers may call from (localhost, 127.0.0.1)
  CORS_ALLOW_METHODS, CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE
  PROFILER_MAX_REPORTS  debug reports kept at most, the newest (10000; 1 to 5000000)
  PROFILER_MAX_AGE      how long reports are kept: seconds, or 90s, 30m, 48h, 2d (2d)
  PROFILER_ALLOW        IPs or CIDRs besides loopback that may open /_profiler
  PROFILER_REDACT       header and query names to redact in reports, besides the credentials
  PROFILER_TOOLBAR      0 to leave the debug toolbar off the application's HTML pages (1)
  PROFILER_CAPTURE_APP  0 to leave the application's HTTP calls and database statements out of reports (1)
  PROFILER_SLOW_QUERY   milliseconds above which a database statement is flagged slow (100)
  VIGIL_IDE         editor for source links on debug pages: vscode, cursor, idea, phpstorm, webstorm,
                    sublime, textmate, emacs, macvim, atom, or a format like myide://open?file=%f&line=%l
                    (none: files are plain text)

Per-request limits (php.ini names and syntax: bytes, or a number with K, M or G):
  POST_MAX_SIZE       largest request body (100M; 0: no limit)
  UPLOAD_MAX_FILESIZE largest uploaded file (100M)
  MAX_EXECUTION_TIME  seconds a handler may run (660; 0: no limit)
  MEMORY_LIMIT        memory of one isolated request (512M; -1: no limit)
  ISOLATED_WORKERS    worker processes for isolated routes, in each of the WORKERS
                      (CPU count, at most 8, shared out between the WORKERS)
  PARSED_BODY_MAX_SIZE largest JSON, form or text body, held in memory (512K; 0: POST_MAX_SIZE only)
  BODY_TIMEOUT        a body that sends no byte for this long gets 408 (60s; 0: no limit)
  BODY_MIN_RATE       bytes/s a body must average after its first 10s, or it gets 408 (500; 0: no limit)

Connections (durations: seconds, or 90s, 30m, 2h):
  HANDSHAKE_TIMEOUT   time a TLS handshake may take (10s)
  MAX_CONNECTIONS     open connections at most, per worker; more are closed at once (10000; 0: no limit)
  SHUTDOWN_TIMEOUT    after SIGTERM/SIGINT, time requests in flight get before their connections are cut (30s);
                      a second signal cuts at once

Reports from the command line: npm run vigil -- --help
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}

let config: Config | undefined;
try {
  config = loadConfig();
  const mode = `${config.appEnv}, debug ${config.debug ? 'on' : 'off'}`;
  if (config.workers === 1) await serve(config);
  else {
    // Loaded only with WORKERS above 1: a single process serves as it always did.
    const { default: cluster } = await import('node:cluster');
    if (cluster.isPrimary) (await import('./server/cluster-primary.js')).runPrimary(config, mode);
    else await serve(config, new (await import('./server/cluster-worker.js')).PrimaryLink());
  }
} catch (error) {
  process.stderr.write(`vigil: cannot start: ${startFailureLine(error, config)}\n`);
  process.exit(1);
}

/**
 * Serves from this process: alone (WORKERS=1), or as one of the primary's workers, which
 * then tells the primary it listens and stops when the primary says so.
 */
async function serve(config: Config, primary?: PrimaryLink): Promise<void> {
  // Loaded here: a primary (WORKERS above 1) never loads the kernel.
  const [{ createKernel }, { startService }, { startupBanner }] = await Promise.all([import('./app.js'), import('./server/start.js'), import('./server/startup-banner.js')]);
  const service = await startService(config, createKernel, primary ? { peerCounters: primary.peerCounters } : {});
  const { routes, profiler } = service.kernel;
  if (primary) {
    if (profiler) primary.shareCounters(() => profiler.counters());
    primary.announce(service.url);
  } else {
    const routeCount = routes.known.filter((route) => !route.name.startsWith('_profiler')).length;
    process.stdout.write(startupBanner(config, { url: service.url, routeCount, store: profiler?.store.location }));
  }
  let stopping = false;
  let cut = false;
  let signals = 0;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const seconds = config.shutdownTimeoutMs / 1000;
    service.kernel.app.log.info(`${signal}: closing connections (requests in flight get SHUTDOWN_TIMEOUT, ${seconds}s) and writing queued reports`);
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`vigil: error while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  // Does not wait for requests in flight; the queue is still written.
  const cutNow = (signal: string) => {
    stop(signal);
    if (cut) return;
    cut = true;
    service.cutNow(`${signal} again`);
  };
  const signalled = (signal: string) => (++signals === 1 ? stop(signal) : cutNow(signal));
  process.on('SIGINT', () => signalled('SIGINT'));
  process.on('SIGTERM', () => signalled('SIGTERM'));
  // The primary's stop may come beside a signal sent to every process (a terminal's Ctrl-C,
  // systemd's stop): the two are one stop, and only a second signal or the primary's cut cuts.
  primary?.onStop(stop);
  primary?.onCut(cutNow);
}
