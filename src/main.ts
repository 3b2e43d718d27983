/** `npm start`: reads the configuration, starts the service and prints where it answers. */
import { describeMode, loadConfig, SETTING_GROUPS, SETTINGS, type Config, type Setting } from './config/index.js';
import type { PrimaryLink } from './server/cluster-worker.js';
import { startFailureLine } from './server/start-failure.js';

const help = () => `vigil: an HTTPS service kernel with debug error pages and a stored report for every request.

Usage: npm start            (or: node --import tsx src/main.ts)

Settings come from the environment or a .env file (real environment variables win);
defaults in parentheses. The reference: docs/configuration.md
${settingsHelp()}
Reports from the command line: npm run vigil -- --help
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(help());
  process.exit(0);
}

let config: Config | undefined;
try {
  config = loadConfig();
  const mode = describeMode(config);
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
  const [{ createKernel }, { startService }, { startupBanner }] = await Promise.all([
    import('./app.js'),
    import('./server/start.js'),
    import('./server/startup-banner.js'),
  ]);
  const service = await startService(config, createKernel, primary ? { peerCounters: primary.peerCounters } : {});
  const { routes, profiler } = service.kernel;
  if (primary) {
    if (profiler)
      primary.shareCounters(
        () => profiler.counters(),
        (listener) => profiler.onCountersChange(listener),
      );
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
    service.kernel.app.log.info(
      `${signal}: closing connections (requests in flight get SHUTDOWN_TIMEOUT, ${seconds}s) and writing queued reports`,
    );
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

/** The settings table as --help lists it: a heading per group, a line per setting, wrapped at 120 columns. */
function settingsHelp(): string {
  const settings = Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>;
  const column = Math.max(...settings.map(([name]) => name.length)) + 4;
  let text = '';
  for (const [group, heading] of Object.entries(SETTING_GROUPS)) {
    text += `\n${heading}:\n`;
    for (const [name, declared] of settings.filter(([, each]) => each.group === group)) {
      const fallback = [declared.default ?? declared.defaultText, declared.off].filter(Boolean).join('; ');
      // The default is one unit: a line breaks before it, not inside it.
      const unit = fallback ? ` (${fallback})`.replace(/(?!^) /g, '\u00a0') : '';
      text += wrap(`  ${name.padEnd(column - 2)}${declared.description}${unit}`, column).replace(/\u00a0/g, ' ');
    }
  }
  return text;
}

function wrap(line: string, indent: number): string {
  const lines: string[] = [];
  let rest = line;
  while (rest.length > 120) {
    const cut = rest.lastIndexOf(' ', 120);
    if (cut <= indent) break;
    lines.push(rest.slice(0, cut));
    rest = ' '.repeat(indent) + rest.slice(cut + 1);
  }
  return `${[...lines, rest].join('\n')}\n`;
}
