/** `vigil debug:router`, `vigil router:match` and "did you mean", run as a user runs them, on the demo routes. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { runVigil, runVigilBin, type Run } from '../support/command-line.js';
import { builtFile } from '../support/kernel-build.js';
import { ROOT } from '../support/root.js';

const varDir = mkdtempSync(join(tmpdir(), 'vigil-routes-cli-'));

function vigil(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runVigil(args, { VAR_DIR: varDir, ROUTES: 'examples/demo-routes.ts', ...env });
}

describe('vigil debug:router lists the routes ROUTES declares', () => {
  it('prints name, methods, path, requirements and isolated, in declaration order', async () => {
    // Through bin/vigil.js itself, which loads the TypeScript routes module through tsx; the other tests run from the build.
    const { code, stdout } = await runVigilBin(['debug:router'], {
      VAR_DIR: varDir,
      ROUTES: 'examples/demo-routes.ts',
    });
    assert.equal(code, 0);
    const lines = stdout.split('\n');
    assert.match(lines[1]!, /^Name\s+Method\s+Path\s+Requirements\s+Isolated$/);
    assert.ok(
      lines.some((line) => /^PUT \/items\/\{id\}\s+PUT\s+\/items\/\{id\}\s+id: \\d\+\s+no$/.test(line)),
      stdout,
    );
    assert.ok(
      lines.some((line) => /^GET \/spin\s+GET\s+\/spin\s+-\s+yes$/.test(line)),
      stdout,
    );
    assert.ok(
      lines.some((line) => /^GET\|POST \/items\s+GET\|POST\s+\/items\s/.test(line)),
      stdout,
    );
    assert.ok(!stdout.includes('_profiler'), "the profiler's own routes are not the application's");
    const order = [
      'GET /hello',
      'GET|POST /items',
      'PUT /items/{id}',
      'GET /with-slash/',
      'GET /page',
      'POST /upload',
      'GET /slow',
      'GET /spin',
      'GET /hog',
    ];
    assert.deepEqual(
      order
        .map((name) => stdout.indexOf(`\n${name} `))
        .every((index, i, all) => index > 0 && (i === 0 || index > all[i - 1]!)),
      true,
    );
  });

  it('prints the same as JSON with --json', async () => {
    const { code, stdout } = await vigil(['debug:router', '--json']);
    assert.equal(code, 0);
    const routes = JSON.parse(stdout) as Array<{
      name: string;
      methods: string[];
      path: string;
      requirements: Record<string, string>;
      isolated: boolean;
    }>;
    assert.deepEqual(
      routes.find((route) => route.path === '/items/{id}'),
      { name: 'PUT /items/{id}', methods: ['PUT'], path: '/items/{id}', requirements: { id: '\\d+' }, isolated: false },
    );
    assert.equal(routes.find((route) => route.path === '/hog')?.isolated, true);
    assert.equal(routes.length, 16);
  });

  it('says so when ROUTES names no module', async () => {
    const { code, stdout } = await vigil(['debug:router'], { ROUTES: '' });
    assert.equal(code, 0);
    assert.match(stdout, /^No routes: ROUTES names no module/);
  });
});

describe('vigil router:match tells which route answers, or why each does not', () => {
  it('exits 0 and names the route that matches', async () => {
    const { code, stdout } = await vigil(['router:match', '/items/12', '--method', 'put']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Route "PUT \/items\/\{id\}" matches$/m);
    assert.match(stdout, /^\[OK\] Route "PUT \/items\/\{id\}" matches PUT \/items\/12: PUT \/items\/\{id\}$/m);
  });

  it('exits 1 and says a requirement failed, and what the service answers', async () => {
    const { code, stdout } = await vigil(['router:match', '/items/abc', '--method', 'PUT']);
    assert.equal(code, 1);
    assert.match(
      stdout,
      /^Route "PUT \/items\/\{id\}" almost matches but requirement for "id" does not match \(\\d\+\)$/m,
    );
    assert.match(stdout, /^Route "GET \/hello" does not match: path "\/hello" does not match$/m);
    assert.match(stdout, /^None matches: the service answers 404 Not Found\.$/m);
  });

  it('names the routes a few letters from a path no route takes, as the debug 404 does', async () => {
    const [typo, far] = await Promise.all([vigil(['router:match', '/helo']), vigil(['router:match', '/nowhere'])]);
    assert.equal(typo.code, 1);
    assert.match(typo.stdout, /^None matches: the service answers 404 Not Found\.\nDid you mean: GET \/hello$/m);
    assert.ok(!far.stdout.includes('Did you mean'), far.stdout);
  });

  it('tells a wrong method (405 with Allow) and a missing trailing slash (301)', async () => {
    const [wrongMethod, slash] = await Promise.all([
      vigil(['router:match', '/hello', '--method', 'DELETE']),
      vigil(['router:match', '/with-slash']),
    ]);
    assert.equal(wrongMethod.code, 1);
    assert.match(wrongMethod.stdout, /^Route "GET \/hello" almost matches but method "DELETE" is not among GET$/m);
    assert.match(wrongMethod.stdout, /^None matches: the service answers 405 Method Not Allowed \(Allow: GET\)\.$/m);
    assert.equal(slash.code, 1);
    assert.match(slash.stdout, /^None matches: the service answers 301, redirecting to "\/with-slash\/"\.$/m);
  });

  it('checks --host against TRUSTED_HOSTS first', async () => {
    const { code, stdout } = await vigil(['router:match', '/hello', '--host', 'evil.example'], {
      TRUSTED_HOSTS: '^localhost$',
    });
    assert.equal(code, 1);
    assert.match(stdout, /^Host "evil\.example" is not trusted \(TRUSTED_HOSTS\)/);
  });

  it('refuses a path that is not one, with exit code 2', async () => {
    const { code, stderr } = await vigil(['router:match', 'hello']);
    assert.equal(code, 2);
    assert.match(stderr, /^vigil router:match: the path must start with "\/": "hello"/);
  });
});

describe('--app reads the routes of an application that registers vigil, without listening', () => {
  // The module path as an operator types it: relative to the working directory (the repository).
  const app = relative(ROOT, builtFile('test/fixtures/plugin-app.ts')!);

  it("lists its native routes and its routes API routes, not the profiler's, and exits", async () => {
    const { code, stdout, stderr } = await vigil(['debug:router', '--app', app], { ROUTES: '' });
    assert.equal(code, 0, stderr);
    const lines = stdout.split('\n');
    assert.match(lines[1]!, /^Name\s+Method\s+Path\s+Requirements\s+Isolated$/);
    assert.ok(
      lines.some((line) => /^PUT \/items\/\{id\}\s+PUT\s+\/items\/\{id\}\s+id: \\d\+\s+no$/.test(line)),
      stdout,
    );
    assert.ok(
      lines.some((line) => /^GET \/hello\s+GET\s+\/hello\s+-\s+no$/.test(line)),
      stdout,
    );
    assert.ok(
      lines.some((line) => /^GET \/users\/:id\(\^\\d\+\$\)\s+GET\s+\/users\/:id\(\^\\d\+\$\)\s/.test(line)),
      stdout,
    );
    assert.ok(!stdout.includes('_profiler'), stdout);
  });

  it('prints them as JSON with --json', async () => {
    const { code, stdout } = await vigil(['debug:router', '--app', app, '--json'], { ROUTES: '' });
    assert.equal(code, 0);
    const routes = JSON.parse(stdout) as Array<{ name: string }>;
    assert.deepEqual(routes.map((route) => route.name).sort(), [
      'GET /hello',
      'GET /users/:id(^\\d+$)',
      'PUT /items/{id}',
    ]);
  });

  it('tells which route answers, or what the application answers', async () => {
    const [matched, wrongMethod] = await Promise.all([
      vigil(['router:match', '--app', app, '/users/12'], { ROUTES: '' }),
      vigil(['router:match', '--app', app, '/hello', '--method', 'POST'], { ROUTES: '' }),
    ]);
    assert.equal(matched.code, 0, matched.stderr);
    assert.match(matched.stdout, /^\[OK\] Route "GET \/users\/:id\(\^\\d\+\$\)" matches GET \/users\/12/m);
    assert.equal(wrongMethod.code, 1, wrongMethod.stderr);
    assert.match(wrongMethod.stdout, /^None matches: the service answers 405 Method Not Allowed \(Allow: GET\)\.$/m);
  });

  it('refuses, in a line saying what to do, a module without vigil or without a default export', async () => {
    const [plain, none, missing] = await Promise.all([
      vigil(['debug:router', '--app', relative(ROOT, builtFile('test/fixtures/plain-fastify-app.ts')!)], {
        ROUTES: '',
      }),
      vigil(['debug:router', '--app', relative(ROOT, builtFile('test/fixtures/secret-corpus.ts')!)], { ROUTES: '' }),
      vigil(['debug:router', '--app', 'no/such/app.js'], { ROUTES: '' }),
    ]);
    assert.equal(plain.code, 1);
    assert.match(
      plain.stderr,
      /^vigil debug:router: .*plain-fastify-app\.js builds a Fastify application without vigil: register it .*\n$/,
    );
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /^vigil debug:router: .*secret-corpus\.js must export as default a function that builds the Fastify application .*\n$/,
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^vigil debug:router: cannot load .*no\/such\/app\.js: the file does not exist\n$/);
  });
});

describe('--app takes the module fastify-cli generates, and a TypeScript one through tsx', () => {
  const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((route) => route.name).sort();
  const expected = ['DELETE /users', 'DELETE /users/', 'GET /', 'GET /users', 'GET /users/'];

  it('registers a plugin of (fastify, opts) on an instance of its options, and prints JSON only', async () => {
    const app = relative(ROOT, builtFile('test/fixtures/cli-generated-app.ts')!);
    const { code, stdout, stderr } = await vigil(['debug:router', '--app', app, '--json'], { ROUTES: '' });
    assert.equal(code, 0, stderr);
    assert.deepEqual(names(stdout), expected);
  });

  it('loads a .ts module through the tsx its project installs', async () => {
    const { code, stdout, stderr } = await vigil(
      ['debug:router', '--app', 'test/fixtures/cli-generated-app.ts', '--json'],
      { ROUTES: '' },
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(names(stdout), expected);
  });
});

describe('a mistyped command or option gets "did you mean"', () => {
  it('suggests the command, and exits 2', async () => {
    const { code, stderr } = await vigil(['profiler:lst']);
    assert.equal(code, 2);
    assert.match(stderr, /^vigil: unknown command "profiler:lst"\. Did you mean "profiler:list"\?/);
  });
  it('suggests the option the typed one begins', async () => {
    const { code, stderr } = await vigil(['profiler:list', '--status', '200']);
    assert.equal(code, 2);
    assert.match(stderr, /Unknown option '--status'\. Did you mean "--status-code"\?/);
  });
  it('suggests nothing for a word far from every command', async () => {
    const { stderr } = await vigil(['deploy']);
    assert.match(stderr, /^vigil: unknown command "deploy"\.\n/);
  });
});
