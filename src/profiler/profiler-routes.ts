/**
 * The profiler's own routes, declared like any application's (so 404, 405 and `Allow`
 * work for them too): the newest reports, the search, one report, and the newest one. Each
 * answers HTML, or JSON when `Accept` prefers it. Access and security headers are the
 * profiler's hook's job.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { PROFILER_PATH } from '../debug/request-debug.js';
import { BadRequestHttpError, NotFoundHttpError, ServiceUnavailableHttpError } from '../errors/http-errors.js';
import { negotiateErrorFormat } from '../errors/negotiate.js';
import type { Routes } from '../routing/routes.js';
import { LOGIN_PATH } from './access/production-access.js';
import { admitPageScript } from './access/page-headers.js';
import { occurrencesOf, renderExceptionsPage } from './pages/exceptions-page.js';
import { renderListPage } from './pages/list-page.js';
import { overviewWindow, renderOverviewPage } from './pages/overview-page.js';
import { renderLoginPage } from './pages/login-page.js';
import { panelNames, renderReportPage } from './pages/report-page.js';
import type { Profiler } from './profiler.js';
import type { ListedReport, Report, ReportSearch } from './model/report.js';
import { EXCEPTION_WINDOW, readExceptionGroups } from './storage/exception-groups.js';
import { LATEST_SEARCH, parseSearchFilters } from './storage/search-filters.js';
import { ReportStoreUnavailableError } from './storage/report-store.js';

/** Reports on the profiler's home page. */
const LATEST_COUNT = 50;
/**
 * About how long a search page reads the store: past it, the page shows what was found and
 * links to the older reports (`Link: rel="next"` in JSON), as log search tools page.
 */
const SEARCH_BUDGET_MS = 20;
/** Seconds a client is told to wait before asking again while the store cannot be reached. */
const UNAVAILABLE_RETRY_AFTER = 5;

/**
 * A page's handler whose store calls, every one of them, answer 503 when the store cannot
 * be reached now (not only those a page remembered to guard). A store that cannot be reached
 * (its database server is down) is answered 503 "Report store unavailable" on every page,
 * through the error pipeline, as soon as the store says so: its every call is bounded by
 * timeouts, so a page never hangs on it.
 */
function storePage<C>(
  handler: (context: C) => Promise<FastifyReply> | FastifyReply,
): (context: C) => Promise<FastifyReply> {
  return async (context) => {
    try {
      return await handler(context);
    } catch (error) {
      if (!(error instanceof ReportStoreUnavailableError)) throw error;
      throw new ServiceUnavailableHttpError(
        `Report store unavailable: ${error.location}: ${error.reason}. New reports wait in the write queue and are written once it answers again.`,
        'VIGIL_ERR_REPORT_STORE_UNAVAILABLE',
        UNAVAILABLE_RETRY_AFTER,
        { cause: error },
      );
    }
  };
}

function wantsJson(accept: string | undefined): boolean {
  return negotiateErrorFormat(accept) === 'json';
}

/** `no-store`: reports hold what clients sent, and stay off the browser's disk. */
function send(reply: FastifyReply, json: boolean, body: () => unknown, page: () => string): FastifyReply {
  reply.header('cache-control', 'no-store').header('vary', 'Accept');
  if (json) return reply.type('application/json; charset=utf-8').send(JSON.stringify(body()));
  return reply.type('text/html; charset=UTF-8').send(page());
}

/** The same search, continued below `before`: the reports a budgeted search did not read. */
function olderResults(query: Query, before: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string' && name !== 'before') params.set(name, value);
  }
  params.set('before', String(before));
  return `${PROFILER_PATH}/search?${params}`;
}

/** The search answer in JSON: Symfony's fields, then the duration and vigil's facts. */
function summaries(reports: readonly ListedReport[]): unknown[] {
  return reports.map(({ token, method, url, status, time, ip, duration, ...facts }) => ({
    token,
    method,
    url,
    status,
    time,
    ip,
    duration,
    route: facts.route,
    exception: facts.exception,
    fingerprint: facts.fingerprint,
    statements: facts.statements,
    calls: facts.calls,
  }));
}

/** The same list with the browser's own requests switched (shown, or hidden again). */
function assetsSwitch(path: string, query: Query, showing: boolean) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (typeof value === 'string' && name !== 'assets' && name !== 'before') params.set(name, value);
  if (!showing) params.set('assets', 'show');
  const search = params.toString();
  return { href: search ? `${path}?${search}` : path, showing };
}

/** The query of the live list's JSON search: the page's filters and its limit. */
function liveQuery(query: Query, limit: number | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (typeof value === 'string' && name !== 'before') params.set(name, value);
  if (limit !== undefined) params.set('limit', String(limit));
  return params.toString();
}

type Query = Record<string, string | string[] | undefined>;

/** A list of reports (the newest, or a search's), read under the search budget. */
async function list(
  profiler: Profiler,
  reply: FastifyReply,
  accept: string | undefined,
  heading: string,
  filters: ReportSearch,
  query: Query,
  path: string,
): Promise<FastifyReply> {
  // What was answered before this request is searchable: nothing waits in the queue.
  await profiler.writer.flush();
  const { reports, continueBelow } = await profiler.store.search({ ...filters, budgetMs: SEARCH_BUDGET_MS });
  const stats = await profiler.stats();
  const older = continueBelow === undefined ? undefined : olderResults(query, continueBelow);
  if (older !== undefined) reply.header('link', `<${older}>; rel="next"`);
  const json = wantsJson(accept);
  // A page of older reports stays as it is; the others follow new reports.
  const nonce = json || filters.before !== undefined ? undefined : randomBytes(16).toString('base64');
  if (nonce !== undefined) admitPageScript(reply.raw, nonce);
  return send(
    reply,
    json,
    () => summaries(reports),
    () =>
      renderListPage({
        heading,
        reports,
        filters,
        stats,
        older,
        live: nonce === undefined ? undefined : { query: liveQuery(query, filters.limit), nonce },
        assetsSwitch: assetsSwitch(path, query, filters.hideAssets === false),
      }),
  );
}

/** Groups on the exceptions page. */
const EXCEPTION_GROUPS_SHOWN = 100;

async function exceptions(profiler: Profiler, reply: FastifyReply, accept: string | undefined) {
  await profiler.writer.flush();
  const groups = await readExceptionGroups(profiler.store, EXCEPTION_GROUPS_SHOWN);
  return send(
    reply,
    wantsJson(accept),
    () =>
      groups.map(({ exception, ...group }) => ({
        ...group,
        class: exception,
        links: { newest: `${PROFILER_PATH}/${group.newest}`, occurrences: occurrencesOf(group.fingerprint) },
      })),
    () => renderExceptionsPage(groups, EXCEPTION_WINDOW),
  );
}

/** One report, on the panel the query names. */
function show(
  profiler: Profiler,
  report: Report,
  query: Query,
  accept: string | undefined,
  reply: FastifyReply,
): FastifyReply {
  const panel = query.panel;
  if (Array.isArray(panel))
    throw new BadRequestHttpError('The "panel" parameter is given more than once.', 'VIGIL_ERR_PROFILER_PANEL');
  const names = panelNames(report, profiler.collectors);
  if (panel !== undefined && !names.includes(panel)) {
    throw new BadRequestHttpError(
      `Unknown panel "${panel}"; this report has ${names.join(', ')}.`,
      'VIGIL_ERR_PROFILER_PANEL',
    );
  }
  return send(
    reply,
    wantsJson(accept),
    () => report,
    () => renderReportPage(report, panel, { query }, profiler.collectors),
  );
}

export function declareProfilerRoutes(routes: Routes, profiler: Profiler): void {
  if (profiler.production?.hasLogin) declareLoginRoutes(routes, profiler);
  routes.get(
    PROFILER_PATH,
    storePage(({ request, reply, query }) => {
      const filters = parseSearchFilters({ limit: String(LATEST_COUNT), ...query });
      return list(profiler, reply, request.headers.accept, 'Latest requests', filters, query, PROFILER_PATH);
    }),
    { name: '_profiler_home' },
  );

  routes.get(
    `${PROFILER_PATH}/exceptions`,
    storePage(({ request, reply }) => exceptions(profiler, reply, request.headers.accept)),
    { name: '_profiler_exceptions' },
  );

  routes.get(
    `${PROFILER_PATH}/overview`,
    storePage(async ({ request, reply, query }) => {
      const summary = await profiler.overview.summary(overviewWindow(query));
      return send(
        reply,
        wantsJson(request.headers.accept),
        () => summary,
        () => renderOverviewPage(summary),
      );
    }),
    { name: '_profiler_overview' },
  );

  routes.get(
    `${PROFILER_PATH}/search`,
    storePage(({ request, reply, query }) => {
      const filters = parseSearchFilters(query);
      return list(profiler, reply, request.headers.accept, 'Search results', filters, query, `${PROFILER_PATH}/search`);
    }),
    { name: '_profiler_search' },
  );

  // Symfony's /_profiler/latest: the newest report, whichever process or instance wrote it, a browser's own requests left out.
  routes.get(
    `${PROFILER_PATH}/latest`,
    storePage(async ({ query, request, reply }) => {
      await profiler.writer.flush();
      const [newest] = (await profiler.store.search(LATEST_SEARCH)).reports;
      const report = newest && (await profiler.read(newest.token));
      if (!report)
        throw new NotFoundHttpError(
          'No report is stored yet: the newest one opens here once a request has been answered.',
        );
      return show(profiler, report, query, request.headers.accept, reply);
    }),
    { name: '_profiler_latest' },
  );

  routes.get(
    `${PROFILER_PATH}/{token}`,
    storePage(async ({ params, query, request, reply }) => {
      const report = await profiler.read(params.token);
      if (!report) throw new NotFoundHttpError(`Token "${params.token}" was not found in the database.`);
      return show(profiler, report, query, request.headers.accept, reply);
    }),
    { name: '_profiler' },
  );
}

/**
 * Production's login page, behind its access hook (which answers it only to whom gives its
 * key): the form, and its post, which opens a session and goes on to the newest reports.
 */
function declareLoginRoutes(routes: Routes, profiler: Profiler): void {
  const page = (reply: FastifyReply, action: string, refused: boolean) =>
    reply
      .code(refused ? 403 : 200)
      .header('cache-control', 'no-store')
      .type('text/html; charset=UTF-8')
      .send(renderLoginPage({ action, refused }));
  routes.get(LOGIN_PATH, ({ request, reply }) => page(reply, request.url, false), { name: '_profiler_login' });
  routes.post(
    LOGIN_PATH,
    ({ request, reply, body }) => {
      const given = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).secret : undefined;
      const cookie = profiler.production!.login(request, given);
      if (cookie === undefined) return page(reply, request.url, true);
      return reply.code(303).header('set-cookie', cookie).header('location', PROFILER_PATH).send();
    },
    { name: '_profiler_login_post' },
  );
}
