/**
 * `debug:router` and `router:match`: the routes the ROUTES module declares, or with `--app`
 * those of an application that registers the plugin, and which of them answers a request,
 * or why each does not (Symfony's commands of the same names).
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';
import { RouteMatcher, type MatchableRoute } from '../routing/route-matcher.js';
import { HTTP_METHODS, Routes, type RouteDefinition } from '../routing/routes.js';
import { loadRoutesModule } from '../server/routes-module.js';
import { hostName, TrustedHosts } from '../guards/trusted-hosts.js';
import { UsageError, type Command } from './command.js';
import { APP_EXPORT, applicationRoutes } from './app-module.js';
import { terminalSafe } from './terminal-safe.js';

/** The routes ROUTES declares, as the service declares them (the profiler's own are left out). */
export async function declaredRoutes(config: Config): Promise<readonly RouteDefinition[]> {
  if (!config.routes) return [];
  const module = await loadRoutesModule(config.routes);
  const routes = new Routes();
  await module.declare(routes);
  return routes.definitions;
}

/** A route as the commands list it. */
type ListedRoute = MatchableRoute & Pick<RouteDefinition, 'requirements' | 'isolated'>;

/** The routes of `--app`'s application, or of ROUTES, and the Host expressions that guard them. */
async function routesToList(
  app: string | undefined,
  config: Config,
): Promise<{ routes: readonly ListedRoute[]; trustedHosts: readonly RegExp[] }> {
  if (app === undefined) return { routes: await declaredRoutes(config), trustedHosts: config.trustedHosts };
  const { routes, trustedHosts } = await applicationRoutes(app);
  return { routes: routes.map((route) => ({ ...route, requirements: route.requirements ?? {} })), trustedHosts };
}

function table(header: readonly string[], rawRows: readonly string[][]): string {
  // Cells escaped before they are measured: an escape is wider than the character it shows.
  const rows = rawRows.map((row) => row.map(terminalSafe));
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [rule, line(header), rule, ...rows.map(line), rule].join('\n') + '\n';
}

function requirementsText(definition: ListedRoute): string {
  const entries = Object.entries(definition.requirements);
  return entries.length === 0 ? '-' : entries.map(([name, requirement]) => `${name}: ${requirement}`).join(', ');
}

export const debugRouterCommand: Command = {
  name: 'debug:router',
  summary: 'list the routes the ROUTES module (or --app) declares',
  options: ['--json', '--app'],
  help: `Usage: vigil debug:router [--app <module>] [--json]

Lists the routes of the module ROUTES names, in the order they are matched: name, methods,
path, requirements of its parameters, and whether it runs isolated in a worker process.
GET routes answer HEAD too. The profiler's own /_profiler routes are not listed.
--app <module> lists instead the routes of an application that registers vigil as a
plugin, native and routes API ones: the module (a path from the working directory) exports
${APP_EXPORT}.
--json prints a JSON array of {name, methods, path, requirements, isolated}.
`,
  async run(args, config, output) {
    const { values } = parseArgs({
      args,
      options: { json: { type: 'boolean' }, app: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    const { routes: definitions } = await routesToList(values.app, config);
    if (values.json) {
      const listed = definitions.map(({ name, methods, path, requirements, isolated }) => ({
        name,
        methods,
        path,
        requirements,
        isolated,
      }));
      output.out(`${JSON.stringify(listed, null, 2)}\n`);
      return 0;
    }
    if (definitions.length === 0) {
      if (values.app !== undefined) {
        output.out(`${terminalSafe(values.app)} has no route.\n`);
        return 0;
      }
      output.out(
        config.routes
          ? `${config.routes} declares no route.\n`
          : 'No routes: ROUTES names no module (set it in the environment or .env).\n',
      );
      return 0;
    }
    const rows = definitions.map((definition) => [
      definition.name,
      definition.methods.join('|'),
      definition.path,
      requirementsText(definition),
      definition.isolated ? 'yes' : 'no',
    ]);
    output.out(table(['Name', 'Method', 'Path', 'Requirements', 'Isolated'], rows));
    return 0;
  },
};

export const routerMatchCommand: Command = {
  name: 'router:match',
  summary: 'tell which route answers a path, or why none does',
  options: ['--method', '--host', '--app'],
  help: `Usage: vigil router:match <path> [--method <method>] [--host <host>] [--app <module>]

Tells, for each route of the module ROUTES names, whether it answers <method> <path>
(default GET), and if not why: another path, a requirement of a parameter, or the method.
With --host, the host is first checked against TRUSTED_HOSTS, as the service does.
--app <module> asks the routes of an application that registers vigil as a plugin (see
vigil debug:router --help). Exits 0 when a route matches, 1 otherwise.
`,
  async run(args, config, output) {
    const { values, positionals } = parseArgs({
      args,
      options: { method: { type: 'string' }, host: { type: 'string' }, app: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1)
      throw new UsageError('router:match needs exactly one path, e.g. vigil router:match /items/12 --method PUT');
    const path = positionals[0]!;
    if (!path.startsWith('/')) throw new UsageError(`the path must start with "/": "${terminalSafe(path)}"`);
    const method = (values.method ?? 'GET').toUpperCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method))
      throw new UsageError(`--method must be one of ${HTTP_METHODS.join(', ')}`);
    const { routes, trustedHosts } = await routesToList(values.app, config);
    if (values.host !== undefined && !new TrustedHosts(trustedHosts).trusts(values.host)) {
      output.out(
        `${terminalSafe(`Host "${hostName(values.host)}" is not trusted (TRUSTED_HOSTS): the service answers 400 before routing.`)}\n`,
      );
      return 1;
    }
    const matcher = new RouteMatcher(routes);
    const traces = matcher.trace(method, path);
    for (const trace of traces) output.out(`${terminalSafe(trace.reason)}\n`);
    const match = traces.find((trace) => trace.verdict === 'match');
    if (match) {
      output.out(
        `\n${terminalSafe(`[OK] Route "${match.name}" matches ${method} ${path}: ${match.methods.join('|')} ${match.path}`)}\n`,
      );
      return 0;
    }
    output.out(`\n${noMatch(matcher, method, path).map(terminalSafe).join('\n')}\n`);
    return 1;
  },
};

/**
 * What the service would answer when no route matches: a 405, a redirect, or a 404 (as
 * `routing/unmatched.ts` decides) with the routes a few letters from the path, as its debug page names them.
 */
function noMatch(matcher: RouteMatcher, method: string, path: string): string[] {
  const allowed = matcher.allowedMethods(path);
  if (allowed.length > 0)
    return [`None matches: the service answers 405 Method Not Allowed (Allow: ${allowed.join(', ')}).`];
  if ((method === 'GET' || method === 'HEAD') && path !== '/') {
    const twin = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    if (matcher.answers('GET', twin)) return [`None matches: the service answers 301, redirecting to "${twin}".`];
  }
  const near = matcher.nearest(path).map((route) => `${route.methods.join('|')} ${route.path}`);
  return [
    'None matches: the service answers 404 Not Found.',
    ...(near.length === 0 ? [] : [`Did you mean: ${near.join(', ')}`]),
  ];
}
