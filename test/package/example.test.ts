/**
 * The packed package in a project of its own: `examples/fastify-app` (an ordinary Fastify
 * application with JSON schemas and the plugin) compiles with `tsc --strict` against the
 * shipped declarations, runs from its JavaScript, and gets the debug kernel for its routes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { debugMessage, exceptionFile, lineOf, tokenOf } from '../support/answers.js';
import { loadNodeSqlite } from '../../src/profiler/storage/sqlite/sqlite-node-driver.js';
import { installedPackage } from '../support/package-build.js';
import { ROOT } from '../support/root.js';
import { ask, type Answer, type Ask } from '../support/service.js';

const EXAMPLE = join(ROOT, 'examples/fastify-app');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let project: string;
let compiled: { code: number; output: string };
let child: ChildProcess | undefined;
let service: { url: string; ca: undefined };
/** The example's UPSTREAM_URL: a local server, so that its outgoing call needs no network. */
let upstream: Server;
let upstreamUrl: string;

/** The example's sources and tsconfig, as they are now. */
function exampleHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(join(EXAMPLE, 'src')).sort())
    hash.update(`${name}\0${readFileSync(join(EXAMPLE, 'src', name), 'utf8')}\0`);
  hash.update(readFileSync(join(EXAMPLE, 'tsconfig.json'), 'utf8'));
  return hash.digest('hex').slice(0, 16);
}

/** The example's sources and tsconfig, copied into the project that installed the tarball. */
function copyExample(): void {
  rmSync(join(project, 'src'), { recursive: true, force: true });
  rmSync(join(project, 'dist'), { recursive: true, force: true });
  cpSync(join(EXAMPLE, 'src'), join(project, 'src'), { recursive: true });
  cpSync(join(EXAMPLE, 'tsconfig.json'), join(project, 'tsconfig.json'));
}

function compile(): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync(process.execPath, [TSC, '-p', project, '--strict'], { encoding: 'utf8' }) };
  } catch (error) {
    const { status, stdout } = error as { status: number; stdout: string };
    return { code: status, output: stdout };
  }
}

function start(): Promise<string> {
  const varDir = mkdtempSync(join(tmpdir(), 'vigil-example-'));
  child = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      VAR_DIR: varDir,
      LOG_LEVEL: 'warn',
      UPSTREAM_URL: `${upstreamUrl}/prices`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /fastify-app listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child!.stdout!.on('data', read);
    child!.stderr!.on('data', read);
    child!.once('exit', (code) => reject(new Error(`the example exited with ${code}:\n${output}`)));
  });
}

before(async () => {
  ({ project } = installedPackage());
  // The same example against the same package compiles the same: a stamp keeps the verdict.
  const stamp = join(project, `compiled-${exampleHash()}`);
  if (existsSync(stamp)) {
    compiled = { code: 0, output: readFileSync(stamp, 'utf8') };
  } else {
    copyExample();
    compiled = compile();
    if (compiled.code === 0) writeFileSync(stamp, compiled.output);
  }
  assert.equal(compiled.code, 0, `tsc --strict refused the example:\n${compiled.output}`);
  upstream = createServer((_request, response) => response.end('{"price":42}'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  service = { url: await start(), ca: undefined };
});

after(() => {
  child?.kill('SIGTERM');
  upstream?.close();
});

const get = (request: Ask): Promise<Answer> => ask(service, request);

describe('the packed package installs into a project of its own, typed and runnable', () => {
  it('passes tsc --strict against the shipped .d.ts', () => {
    assert.equal(compiled.code, 0, compiled.output);
  });

  it('runs the vigil command from its build, with no tsx installed', () => {
    assert.equal(existsSync(join(project, 'node_modules/tsx')), false);
    const env = { PATH: process.env.PATH ?? '', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-example-')) };
    const output = execFileSync(
      process.execPath,
      [join(project, 'node_modules/fastify-vigil/bin/vigil.js'), '--help'],
      { cwd: project, env, encoding: 'utf8' },
    );
    assert.match(output, /^vigil: the kernel's command line\./);
  });

  it("lists the example's routes with vigil debug:router --app, without listening", () => {
    const env = {
      PATH: process.env.PATH ?? '',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-example-')),
      LOG_LEVEL: 'warn',
    };
    const output = execFileSync(
      process.execPath,
      [join(project, 'node_modules/fastify-vigil/bin/vigil.js'), 'debug:router', '--app', 'dist/app.js'],
      { cwd: project, env, encoding: 'utf8', timeout: 20_000 },
    );
    assert.match(output, /^POST \/users\s+POST\s+\/users\s+-\s+no$/m);
    assert.match(output, /^GET \/users\/:id\(\^\\d\+\$\)\s+GET\s/m);
  });

  it('is imported from plain JavaScript, without tsx', () => {
    const script =
      "import('fastify-vigil').then((m) => console.log([typeof m.vigil, typeof m.vigilFastifyOptions, typeof m.createKernel, typeof m.ERROR_CODES].join(',')))";
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(output.trim(), 'function,function,function,object');
  });

  it('offers fastify-vigil/routes to routes modules: the routes API and the same error classes, without the kernel', () => {
    const script =
      "Promise.all([import('fastify-vigil/routes'), import('fastify-vigil')]).then(([r, v]) => console.log([typeof r.defineRoutes, typeof r.defineCollector, r.HttpError === v.HttpError, 'vigil' in r, 'createKernel' in r].join(',')))";
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(output.trim(), 'function,function,true,false,false');
    assert.equal(
      existsSync(join(project, 'node_modules/fastify-vigil/dist/src/routes-api.d.ts')),
      true,
      'fastify-vigil/routes has its types',
    );
  });
});

describe("the example's native routes get the debug kernel", () => {
  it("stores a native route's 200 report, which names its route", async () => {
    const answer = await get({ path: '/users/7' });
    assert.equal(answer.status, 200);
    const report = await get({ path: `/_profiler/${tokenOf(answer)}`, headers: { accept: 'application/json' } });
    const routing = (
      JSON.parse(report.body) as { collectors: { routing: { matched: { name: string; path: string } } } }
    ).collectors.routing;
    assert.deepEqual([routing.matched.name, routing.matched.path], ['GET /users/:id(^\\d+$)', '/users/:id(^\\d+$)']);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const answer = await get({ method: 'DELETE', path: '/hello' });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET');
  });

  it('renders a schema error as problem+json, raised at its route', async () => {
    const answer = await get({
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/json', accept: 'application/problem+json' },
      body: '{"name":"Ada"}',
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    const source = join(project, 'src/app.ts');
    const declared = { file: source, line: lineOf(source, "app.post<{ Body: NewUser }>('/users'") };
    assert.deepEqual(exceptionFile(answer), declared);
    const problem = JSON.parse(answer.body) as {
      detail: string;
      exception: { class: string; file: string; line: number };
    };
    assert.equal(problem.detail, "body must have required property 'email'");
    assert.deepEqual(problem.exception, {
      ...problem.exception,
      class: 'SchemaValidationHttpError',
      file: declared.file,
      line: declared.line,
    });
  });

  it("keeps the example's outgoing fetch in the report of the request that made it", async () => {
    const answer = await get({ path: '/upstream' });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { price: 42 });
    const report = await get({ path: `/_profiler/${tokenOf(answer)}`, headers: { accept: 'application/json' } });
    const calls = (
      JSON.parse(report.body) as {
        collectors: { httpClient: { calls: Array<{ url: string; status: number; site: string }> } };
      }
    ).collectors.httpClient.calls;
    assert.deepEqual(
      calls.map((call) => [call.url, call.status]),
      [[`${upstreamUrl}/prices`, 200]],
    );
    assert.match(calls[0]!.site, /^src\/app\.ts:\d+$/);
  });

  it('lists users without PostgreSQL: the database set-up waits for DATABASE_URL', async () => {
    const answer = await get({ path: '/users' });
    assert.equal(answer.status, 200, answer.body);
    assert.ok(Array.isArray(JSON.parse(answer.body)));
  });

  it("answers /robots.txt with a 404: JSON under */* (the plugin's default), the page for a browser", async () => {
    const api = await get({ path: '/robots.txt', headers: { accept: '*/*', 'user-agent': 'seed/1.0' } });
    assert.equal(api.status, 404);
    assert.equal(api.headers['content-type'], 'application/problem+json');
    assert.equal(debugMessage(api), `No route found for "GET ${service.url}/robots.txt"`);
    assert.equal((JSON.parse(api.body) as { status: number }).status, 404);
    const answer = await get({ path: '/robots.txt', headers: { accept: 'text/html', 'user-agent': 'seed/1.0' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(debugMessage(answer), `No route found for "GET ${service.url}/robots.txt"`);
    assert.match(answer.body, /<title>Error 404 Not Found<\/title>/);
  });
});

describe('the package is publishable, and lean for a plugin user', () => {
  it('passes npm publish --dry-run', () => {
    const { tarball } = installedPackage();
    const output = execFileSync('npm', ['publish', '--dry-run', tarball], {
      cwd: mkdtempSync(join(tmpdir(), 'vigil-publish-')),
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    assert.match(output, /fastify-vigil@\d+\.\d+\.\d+/);
  });

  it('installs no PostgreSQL driver, certificate generator or pretty printer', (t) => {
    const listed = execFileSync('npm', ['ls', '--all', '--omit=dev'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    t.diagnostic(`a plugin user's install:\n${listed}`);
    for (const name of ['pg', 'selfsigned', 'pino-pretty'])
      assert.equal(existsSync(join(project, 'node_modules', name)), false, `${name} is installed`);
  });

  it('needs better-sqlite3 only on a Node without node:sqlite', () => {
    // The example above keeps its reports in SQLite: on this Node it ran with what the project has.
    assert.equal(existsSync(join(project, 'node_modules', 'better-sqlite3')), loadNodeSqlite() === undefined);
  });

  it('names the package to install when a feature needs a missing one', () => {
    const env = {
      PATH: process.env.PATH ?? '',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-example-')),
      PROFILER_DSN: 'postgres://vigil@127.0.0.1:1/vigil',
    };
    let stderr = '';
    try {
      execFileSync(process.execPath, [join(project, 'node_modules/fastify-vigil/bin/vigil.js'), 'profiler:list'], {
        cwd: project,
        env,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      stderr = String((error as { stderr?: string }).stderr);
    }
    assert.match(stderr, /the package "pg", which is not installed \(npm install pg\)/);
  });
});
