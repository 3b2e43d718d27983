/**
 * `profiler:list`, `profiler:show` and `profiler:purge`: the stored reports from the
 * terminal, read from the same store the service writes (PROFILER_DSN, by default
 * VAR_DIR/profiler.sqlite; a postgres:// URL for the store several instances share).
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';
import { HttpError } from '../errors/http-errors.js';
import { explainUnmatched, type RoutingSection } from '../profiler/collectors/routing.js';
import { formatMs, formatTime } from '../profiler/model/format.js';
import type { Collector } from '../profiler/model/request-profile.js';
import type { ListedReport, Report } from '../profiler/model/report.js';
import { LATEST_SEARCH, parseSearchFilters, type SearchInput } from '../profiler/storage/search-filters.js';
import { ReportStoreError, type ReportStore } from '../profiler/storage/report-store.js';
import { createReportStore } from '../profiler/storage/store-factory.js';
import { RouteMatcher } from '../routing/route-matcher.js';
import { loadRoutesModule } from '../server/routes-module.js';
import { UsageError, type Command } from './command.js';
import { declaredRoutes } from './route-commands.js';
import { BUILT_IN_SECTIONS, reportAsText } from './report-text.js';
import { terminalSafe } from './terminal-safe.js';

/** The word that names the newest report wherever a token is asked for. */
const LATEST = 'latest';

/** The newest report's token, found as `/_profiler/latest` finds it: a browser's own requests (its icon) skipped. */
async function newestToken(store: ReportStore): Promise<string | undefined> {
  return (await store.search(LATEST_SEARCH)).reports[0]?.token;
}

/**
 * Runs `use` with the store, or with undefined when the service never wrote one (reading must
 * not create it), and closes the store whatever happens: its write thread or its connections
 * would otherwise keep the process alive. A store that fails is named in a `ReportStoreError`
 * (the PostgreSQL store names its own failures: a server that cannot be reached, a refused login).
 */
export async function withStore<T>(
  config: Config,
  use: (store: ReportStore | undefined, location: string) => Promise<T>,
): Promise<T> {
  const store = createReportStore(config.profilerStore);
  try {
    if (!(await store.exists())) return await use(undefined, store.location);
    // A damaged file is not repaired here: the message names it, and the service moves it aside.
    await store.open();
    return await use(store, store.location);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_')) throw error;
    throw new ReportStoreError(
      store.location,
      `the report store ${store.location} failed: ${code}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await store.close();
  }
}

function summaryTable(reports: readonly ListedReport[]): string {
  // Cells escaped before they are measured: an escape is wider than the character it shows.
  const rows = reports.map((r) =>
    [
      ...[r.token, formatTime(r.time), r.method, String(r.status), r.ip, formatMs(r.duration)],
      ...[r.route ?? '-', r.exception ?? '-', String(r.statements ?? '-'), String(r.calls ?? '-'), r.url],
    ].map(terminalSafe),
  );
  const header = ['TOKEN', 'TIME', 'METHOD', 'STATUS', 'IP', 'DURATION', 'ROUTE', 'EXCEPTION', 'SQL', 'CALLS', 'URL'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  // The URL is last and left unpadded: long ones wrap instead of widening every line.
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

const FILTER_OPTIONS = {
  ip: { type: 'string' },
  method: { type: 'string' },
  'status-code': { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  start: { type: 'string' },
  end: { type: 'string' },
  limit: { type: 'string' },
  exception: { type: 'string' },
  fingerprint: { type: 'string' },
  route: { type: 'string' },
  'min-duration': { type: 'string' },
} as const;

export const listCommand: Command = {
  name: 'profiler:list',
  summary: 'list stored debug reports, newest first',
  options: [...Object.keys(FILTER_OPTIONS).map((name) => `--${name}`), '--assets', '--json'],
  help: `Usage: vigil profiler:list [filters] [--assets] [--json]

Lists stored debug reports, newest first: the search of /_profiler/search.

Filters (each optional):
  --ip <part>           the client IP contains this (192.168. finds a network)
  --method <method>     this HTTP method
  --status-code <code>  this response status (499: the client left before the response)
  --url <part>          the URL contains this
  --token <prefix>      the token starts with this (latest: the newest report only)
  --start <time>        at or after this time
  --end <time>          at or before this time (a bare date: the end of that day)
  --limit <n>           at most n reports, 1 to 1000 (default 100)
  --exception <class>   an exception of this class was raised (TypeError)
  --fingerprint <key>   the exception is of this group (profiler:exceptions names them)
  --route <pattern>     this route answered (/api/products/{id}, or GET /api/products/{id})
  --min-duration <ms>   took at least this many milliseconds
  --assets              list a browser's own requests too (favicon.ico, apple-touch-icon*,
                        .well-known/*), left out otherwise
  --json                print a JSON array of {token, method, url, status, time, ip,
                        duration, route, exception, fingerprint, statements, calls}

Times are epoch milliseconds or ISO 8601 (2026-01-02, 2026-01-02T10:30), UTC unless a zone is given.
`,
  async run(args, config, output) {
    const { values } = parseArgs({
      args,
      options: { ...FILTER_OPTIONS, assets: { type: 'boolean' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const { json, assets, 'status-code': statusCode, 'min-duration': minDuration, ...rest } = values;
    const latest = rest.token?.toLowerCase() === LATEST;
    let filters: ReturnType<typeof parseSearchFilters>;
    try {
      filters = parseSearchFilters(
        {
          ...rest,
          token: latest ? undefined : rest.token,
          status_code: statusCode,
          min_duration: minDuration,
          assets: assets ? 'show' : undefined,
        } as SearchInput,
        (field) => `--${field.replace('_', '-')}`,
      );
    } catch (error) {
      if (error instanceof HttpError) throw new UsageError(error.message);
      throw error;
    }
    const { reports, exists, location } = await withStore(config, async (store, location) => {
      const token = store && latest ? await newestToken(store) : filters.token;
      const found = store && !(latest && token === undefined) ? await store.search({ ...filters, token }) : undefined;
      return { reports: found?.reports ?? [], exists: store !== undefined, location };
    });
    if (json) output.out(`${JSON.stringify(reports)}\n`);
    else if (reports.length === 0)
      output.out(exists ? 'No report matches.\n' : `No reports stored yet (no store at ${location}).\n`);
    else output.out(summaryTable(reports));
    return 0;
  },
};

/**
 * The report with the closest routes and allowed methods of an unmatched request derived
 * from the routes ROUTES declares, as the service derives them when its pages are opened.
 * Routes that cannot load leave the section as stored, with a line on stderr.
 */
async function withRoutingExplained(config: Config, report: Report, err: (text: string) => void): Promise<Report> {
  const routing = report.collectors.routing as RoutingSection | undefined;
  if (!routing || routing.matched !== null || routing.closest !== undefined || typeof routing.path !== 'string')
    return report;
  try {
    const explained = explainUnmatched(routing, report, new RouteMatcher(await declaredRoutes(config)));
    return { ...report, collectors: { ...report.collectors, routing: explained } };
  } catch (error) {
    err(
      `vigil: the routes of ${config.routes} could not be loaded (${(error as Error).message}); the closest routes are not shown\n`,
    );
    return report;
  }
}

/**
 * The ROUTES module's collectors, for the text of their sections: loaded only when the
 * report has a section the kernel does not know. A module that cannot load costs only
 * that text (its sections print as JSON), with a line on stderr.
 */
async function applicationCollectors(
  config: Config,
  report: { collectors: Record<string, unknown> },
  err: (text: string) => void,
): Promise<Collector[]> {
  if (!config.routes || Object.keys(report.collectors).every((name) => BUILT_IN_SECTIONS.has(name))) return [];
  try {
    return (await loadRoutesModule(config.routes)).collectors;
  } catch (error) {
    err(
      `vigil: the collectors of ${config.routes} could not be loaded (${(error as Error).message}); their sections print as JSON\n`,
    );
    return [];
  }
}

export const showCommand: Command = {
  name: 'profiler:show',
  summary: 'print one stored report',
  options: ['--json'],
  help: `Usage: vigil profiler:show <token | latest> [--json]

Prints the report stored under <token>, or the newest one (latest, as /_profiler/latest
opens it): request, response, exception with the project's frames and its causes,
routing, performance with the application's spans, memory and log lines. The
sections of the ROUTES module's collectors print their own text (JSON without one).
--json prints it whole, as /_profiler/<token> does with Accept: application/json.
`,
  async run(args, config, output) {
    const { values, positionals } = parseArgs({
      args,
      options: { json: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new UsageError('profiler:show needs exactly one token, or latest');
    const asked = positionals[0]!.toLowerCase();
    const { report: stored, location } = await withStore(config, async (store, location) => {
      const token = store && (asked === LATEST ? await newestToken(store) : asked);
      return { report: token === undefined ? undefined : await store?.read(token), location };
    });
    if (!stored) {
      output.err(
        asked === LATEST
          ? `vigil: no report is stored yet in ${location}\n`
          : `vigil: token "${terminalSafe(asked)}" was not found in ${location}\n`,
      );
      return 1;
    }
    const report = await withRoutingExplained(config, stored, (text) => output.err(text));
    if (values.json) output.out(`${JSON.stringify(report, null, 2)}\n`);
    else output.out(reportAsText(report, await applicationCollectors(config, report, (text) => output.err(text))));
    return 0;
  },
};

export const purgeCommand: Command = {
  name: 'profiler:purge',
  summary: 'delete stored debug reports',
  options: ['--retention'],
  help: `Usage: vigil profiler:purge [--retention]

Deletes every stored report. With --retention, deletes only the reports beyond the
retention (PROFILER_MAX_REPORTS, PROFILER_MAX_AGE), as the service does continuously.
A running service goes on writing new reports; tokens it handed out stay unique.
`,
  async run(args, config, output) {
    const { values } = parseArgs({
      args,
      options: { retention: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const { purged, location } = await withStore(config, async (store, location) => {
      if (!store) return { purged: undefined, location };
      // Run at once, whichever process holds the retention lease.
      const deleted = values.retention
        ? await store.purge({ maxReports: config.profilerMaxReports, maxAgeMs: config.profilerMaxAgeMs })
        : await store.clear();
      return { purged: { deleted: deleted ?? 0, left: await store.count() }, location };
    });
    if (!purged) {
      output.out(`Nothing to purge (no store at ${location}).\n`);
      return 0;
    }
    output.out(`Deleted ${purged.deleted} report${purged.deleted === 1 ? '' : 's'}; ${purged.left} left.\n`);
    return 0;
  },
};
