/** Issue 3, command line: `vigil profiler:list`, `profiler:show` and `profiler:purge` read the service's own store. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { reportAsText } from '../../src/cli/report-text.js';
import { runVigil, runVigilBin, type Run } from '../support/command-line.js';
import { encoded, report } from '../support/reports.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask } from '../support/service.js';
import { openStoreOf } from '../support/stores.js';

/** Runs the command line as a user would (from the build), with the given VAR_DIR. */
function vigil(varDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runVigil(args, { VAR_DIR: varDir, ...env });
}

let varDir: string;
const tokens: Record<string, string> = {};
before(async () => {
  const service = await startInProcess({ ROUTES: 'test/fixtures/failing-routes.ts' });
  varDir = service.varDir;
  for (const [name, path] of [
    ['missing', '/robots.txt?from=cli'],
    ['hello', '/hello'],
    ['fail', '/fail'],
    ['other', '/nowhere'],
  ]) {
    tokens[name!] = String((await ask(service, { path: path! })).headers['x-debug-token']);
  }
  // Stopping flushes the queue, so every report is in the store the commands read.
  await service.stop();
});

describe('vigil --help lists the commands', () => {
  it('names each command, and a command explains its options', async () => {
    // Through bin/vigil.js itself once: the other tests run the same command line from the build.
    const help = await runVigilBin(['--help'], { VAR_DIR: varDir });
    assert.equal(help.code, 0);
    for (const command of ['profiler:list', 'profiler:show', 'profiler:purge'])
      assert.match(help.stdout, new RegExp(`  ${command} `));
    const list = await vigil(varDir, ['profiler:list', '--help']);
    for (const option of [
      '--ip',
      '--method',
      '--status-code',
      '--url',
      '--token',
      '--start',
      '--end',
      '--limit',
      '--json',
    ])
      assert.match(list.stdout, new RegExp(`  ${option} `));
  });

  it('refuses an unknown command or option with exit code 2', async () => {
    const unknown = await vigil(varDir, ['profiler:lsit']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^vigil: unknown command "profiler:lsit"/);
    const option = await vigil(varDir, ['profiler:list', '--colour']);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /Unknown option '--colour'/);
  });
});

describe('profiler:list searches with the web search’s filters', () => {
  it('lists the 404s, newest first, as a table', async () => {
    const run = await vigil(varDir, ['profiler:list', '--status-code', '404']);
    assert.equal(run.code, 0);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^TOKEN\s+TIME\s+METHOD\s+STATUS\s+IP\s+DURATION\s+ROUTE\s+EXCEPTION\s+SQL\s+CALLS\s+URL$/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/\s+/)[0]),
      [tokens.other, tokens.missing],
    );
    assert.match(lines[2]!, /GET\s+404\s+127\.0\.0\.1\s+.*\/robots\.txt\?from=cli$/);
  });

  it('prints JSON with --json, and combines filters', async () => {
    const run = await vigil(varDir, ['profiler:list', '--json', '--method', 'get', '--url', 'from=cli']);
    const results = JSON.parse(run.stdout) as Array<{ token: string; status: number }>;
    assert.deepEqual(
      results.map((r) => [r.token, r.status]),
      [[tokens.missing, 404]],
    );
  });

  it('rejects a bad filter naming the option', async () => {
    const run = await vigil(varDir, ['profiler:list', '--limit', '5000']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^vigil profiler:list: --limit must be a whole number from 1 to 1000; got "5000"\./);
  });

  it('says so when no store exists yet, without creating one', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vigil-empty-'));
    const run = await vigil(empty, ['profiler:list']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^No reports stored yet \(no store at .*profiler\.sqlite\)\.$/m);
    assert.equal((await vigil(empty, ['profiler:list'])).stdout, run.stdout, 'still no store');
  });
});

describe('profiler:show prints one report', () => {
  it('summarises request, exception, routing, performance and memory', async () => {
    const run = await vigil(varDir, ['profiler:show', tokens.fail!]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, new RegExp(`^Report ${tokens.fail}\\n  GET https://localhost:\\d+/fail\\n  status 500, `));
    assert.match(
      run.stdout,
      /\nException\n  Error \(VIGIL_ERR_INTERNAL, status 500\): database is down\n  raised at .*test\/fixtures\/failing-routes\.ts:8\n/,
    );
    assert.match(run.stdout, /\nRouting\n  route GET \/fail \/fail \(GET\)\n/);
    assert.match(run.stdout, /\nPerformance\n  total [\d.]+ ms: routing/);
    assert.match(run.stdout, /\nMemory\n  heap used [\d.]+ MiB -> /);
    assert.match(run.stdout, /\nLogs \(1\)\n  error .* database is down\n/);
  });

  it('prints the whole report with --json', async () => {
    const run = await vigil(varDir, ['profiler:show', tokens.hello!, '--json']);
    const report = JSON.parse(run.stdout) as { token: string; status: number };
    assert.equal(report.token, tokens.hello);
    assert.equal(report.status, 200);
  });

  it('fails with exit code 1 for an unknown token', async () => {
    const run = await vigil(varDir, ['profiler:show', 'abcdef']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^vigil: token "abcdef" was not found in .*profiler\.sqlite$/m);
  });
});

describe('profiler:purge deletes reports', () => {
  it('applies the retention with --retention, then deletes everything', async () => {
    const retention = await vigil(varDir, ['profiler:purge', '--retention'], { PROFILER_MAX_REPORTS: '1' });
    assert.equal(retention.stdout, 'Deleted 3 reports; 1 left.\n');
    const left = JSON.parse((await vigil(varDir, ['profiler:list', '--json'])).stdout) as Array<{ token: string }>;
    assert.deepEqual(
      left.map((r) => r.token),
      [tokens.other],
    );
    const all = await vigil(varDir, ['profiler:purge']);
    assert.equal(all.stdout, 'Deleted 1 report; 0 left.\n');
    assert.equal((await vigil(varDir, ['profiler:list'])).stdout, 'No report matches.\n');
  });
});

describe('the service and the command line use the store PROFILER_DSN names', () => {
  it('stores reports in the SQLite file sqlite:<path> names, and the commands read them there', async () => {
    const home = mkdtempSync(join(tmpdir(), 'vigil-dsn-var-'));
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'vigil-dsn-')), 'shared', 'reports.sqlite');
    const env = { PROFILER_DSN: `sqlite:${elsewhere}` };
    const service = await startInProcess({ VAR_DIR: home, ...env });
    const token = String((await ask(service, { path: '/stored-elsewhere' })).headers['x-debug-token']);
    await service.stop();
    assert.ok(existsSync(elsewhere), 'the store is the named file');
    assert.equal(existsSync(join(home, 'profiler.sqlite')), false, 'nothing is stored under VAR_DIR');
    const shown = await vigil(home, ['profiler:show', token, '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match((JSON.parse(shown.stdout) as { url: string }).url, /\/stored-elsewhere$/);
    const missing = await vigil(home, ['profiler:list'], { PROFILER_DSN: `sqlite:${elsewhere}.absent` });
    assert.equal(missing.stdout, `No reports stored yet (no store at ${elsewhere}.absent).\n`);
  });

  it('refuses another scheme naming PROFILER_DSN and the supported ones, without repeating the DSN', async () => {
    const run = await vigil(varDir, ['profiler:list'], { PROFILER_DSN: 'mysql://vigil:s3cret@db.internal/vigil' });
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'vigil profiler:list: PROFILER_DSN: the scheme "mysql:" is not supported; the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and postgres://user:password@host:port/database (PostgreSQL)\n\n',
    );
  });
});

describe('profiler commands stop with a message on a store they cannot use', () => {
  /** A real store of 300 reports, closed, with its middle third overwritten. */
  async function overwrittenStore(dir: string): Promise<string> {
    const file = join(dir, 'profiler.sqlite');
    const store = await openStoreOf(dir);
    await store.write(
      encoded(
        Array.from({ length: 300 }, (_, i) =>
          report(i.toString(16).padStart(6, '0'), { collectors: { request: { body: `${i} `.repeat(800) } } }),
        ),
      ),
    );
    await store.close();
    const bytes = readFileSync(file);
    const third = Math.floor(bytes.length / 3 / 4096) * 4096;
    randomBytes(third).copy(bytes, third);
    writeFileSync(file, bytes);
    return file;
  }

  it('exits 1 naming the store when it is not a database, and leaves the file as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-garbage-'));
    const garbage = randomBytes(32 * 1024);
    writeFileSync(join(dir, 'profiler.sqlite'), garbage);
    const purge = await vigil(dir, ['profiler:purge']);
    assert.equal(purge.code, 1, purge.stderr);
    assert.ok(
      purge.stderr.startsWith(
        `vigil profiler:purge: the report store ${join(dir, 'profiler.sqlite')} is damaged (file is not a database)`,
      ),
      purge.stderr,
    );
    assert.doesNotMatch(purge.stderr, /\n    at /, 'a message, not a stack');
    assert.ok(readFileSync(join(dir, 'profiler.sqlite')).equals(garbage));
  });

  it('exits 1 with the message on a store whose pages were overwritten, instead of hanging', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-overwritten-'));
    const file = await overwrittenStore(dir);
    for (const args of [['profiler:purge'], ['profiler:purge', '--retention'], ['profiler:list']]) {
      const run = await vigil(dir, args, { PROFILER_MAX_REPORTS: '1' });
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.ok(run.stderr.startsWith(`vigil ${args[0]}: the report store ${file} is damaged`), run.stderr);
    }
  });

  it('exits 1 naming the store when it cannot be opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-unreadable-'));
    mkdirSync(join(dir, 'profiler.sqlite'));
    const purge = await vigil(dir, ['profiler:purge']);
    assert.equal(purge.code, 1, purge.stderr);
    assert.ok(
      purge.stderr.startsWith(
        `vigil profiler:purge: the report store ${join(dir, 'profiler.sqlite')} cannot be opened`,
      ),
      purge.stderr,
    );
  });
});

describe('profiler:show does not load the application', () => {
  it('prints a report with Database and HTTP client sections without importing ROUTES', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-tripwire-'));
    const store = await openStoreOf(dir);
    const [token] = (await store.leaseTokens(1)) as [string];
    const site = { site: 'src/orders.ts:42', error: false };
    const database = {
      texts: ['SELECT id FROM orders WHERE id = $1'],
      statements: [{ text: 0, system: 'postgresql', start: 0.2, duration: 0.4, rows: 1, ...site }],
      omitted: 0,
      slowMs: 100,
    };
    const call = { method: 'GET', url: 'https://api.example/x', start: 0.3, duration: 2, status: 200 };
    const httpClient = {
      calls: [{ ...call, requestSize: 0, responseSize: 2, error: null, site: site.site }],
      omitted: 0,
    };
    await store.write(encoded([report(token, { status: 200, collectors: { database, httpClient } })]));
    await store.close();
    const marker = join(dir, 'routes-imported');
    const run = await vigil(dir, ['profiler:show', token], {
      ROUTES: 'test/fixtures/tripwire-routes.ts',
      TRIPWIRE_FILE: marker,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\nDatabase\n {2}1 query in /);
    assert.match(run.stdout, /\nHTTP client\n {2}1 HTTP call in /);
    assert.equal(existsSync(marker), false, 'the ROUTES module was imported');
    assert.doesNotMatch(run.stdout, /tripwire-routes: imported/);
    assert.equal(run.stderr, '');
  });
});

describe('profiler:show and profiler:list print stored values escaped, never as terminal controls', () => {
  const hostile = report('abcdef', {
    url: 'https://localhost:8443/a\u202eb',
    collectors: {
      logs: {
        lines: [
          { level: 'warn', time: null, message: 'red \u001b[31malert\u0007', context: {} },
          { level: 'info', time: null, message: 'paid\n[fake] line \u202eevil\r\u009b', context: {} },
        ],
        omitted: 0,
      },
    },
  });

  it('escapes control characters and bidi controls of a log line visibly', () => {
    const text = reportAsText(hostile);
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    assert.match(text, /red \\u001b\[31malert\\u0007\n/);
    assert.match(text, /paid\\n\[fake\] line \\u202eevil\\r\\u009b\n/);
    assert.doesNotMatch(text, /^\[fake\]/m);
  });

  it('prints a stored log line that forges a line as one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-forged-'));
    const store = await openStoreOf(dir);
    const [token] = (await store.leaseTokens(1)) as [string];
    await store.write(encoded([{ ...hostile, token }]));
    await store.close();
    const show = await vigil(dir, ['profiler:show', token]);
    assert.equal(show.code, 0, show.stderr);
    assert.doesNotMatch(show.stdout, /^\[fake\]/m);
    assert.match(show.stdout, /^ {2}info {3}paid\\n\[fake\] line \\u202eevil\\r\\u009b$/m);
    assert.doesNotMatch(show.stdout, /[\u202e\u009b\r]/);
    const list = await vigil(dir, ['profiler:list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /https:\/\/localhost:8443\/a\\u202eb$/m);
    assert.doesNotMatch(list.stdout, /\u202e/);
  });
});
