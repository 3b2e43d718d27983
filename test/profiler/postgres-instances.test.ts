/**
 * Issue 12, several instances on one PostgreSQL store: a token minted by one opens on the
 * other, their tokens never clash, retention holds across them, the command line reads the
 * same store, and a bad PROFILER_DSN or login stops the start without showing the password.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { askInTurn, startKernel } from '../support/kernel.js';
import { sendMany } from '../support/load.js';
import { PG_PASSWORD, startPostgres, type PostgresServer } from '../support/postgres.js';
import { runVigil, type Run } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, runMain, type Service } from '../support/service.js';

const JSON_ACCEPT = { accept: 'application/json' };
const SECRETS = [PG_PASSWORD, encodeURIComponent(PG_PASSWORD)];
const assertNoPassword = (text: string) => {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `the password shows in: ${text}`);
};

let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.close());

const storedCount = async (dsn: string) =>
  (await server.query<{ n: number }>(dsn, 'SELECT count(*)::int AS n FROM vigil_reports'))[0]!.n;

/** The report `token` as `service` opens it, asked again for up to 5 s while it is not yet stored. */
const openedOnceStored = async (service: Service, token: string) => {
  let opened = await ask(service, { path: `/_profiler/${token}`, headers: JSON_ACCEPT });
  for (let i = 0; i < 100 && opened.status === 404; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    opened = await ask(service, { path: `/_profiler/${token}`, headers: JSON_ACCEPT });
  }
  return opened;
};

describe('two instances on one database: a token minted by one opens on the other', () => {
  it("opens on B the report of a request A answered, and B's search lists A's reports", async () => {
    const dsn = await server.database('pair');
    const [a, b] = await Promise.all([startInProcess({ PROFILER_DSN: dsn }), startInProcess({ PROFILER_DSN: dsn })]);
    try {
      const fromA = tokenOf(await ask(a, { path: '/made-on-a?from=a' }));
      assert.match(fromA, /^[0-9a-f]{6}$/);
      // A writes its reports a few milliseconds after answering; B's page waits for nothing of A's.
      const opened = await openedOnceStored(b, fromA);
      assert.equal(opened.status, 200, opened.body);
      assert.match((JSON.parse(opened.body) as { url: string }).url, /\/made-on-a\?from=a$/);
      // Reports are listed in the order they were stored, so B is asked once A's is stored.
      const fromB = tokenOf(await ask(b, { path: '/made-on-b' }));
      assert.notEqual(fromA, fromB);
      assert.equal((await openedOnceStored(b, fromB)).status, 200);
      const found = JSON.parse(
        (await ask(b, { path: '/_profiler/search?url=made-on', headers: JSON_ACCEPT })).body,
      ) as Array<{ token: string }>;
      assert.deepEqual(
        found.map((report) => report.token),
        [fromB, fromA],
        'newest first, from both instances',
      );
      const onA = JSON.parse(
        (await ask(a, { path: `/_profiler/search?token=${fromB}`, headers: JSON_ACCEPT })).body,
      ) as Array<{ token: string }>;
      assert.deepEqual(
        onA.map((report) => report.token),
        [fromB],
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('two kernels writing one PostgreSQL store never hand out the same token', () => {
  it('issues 20,000 tokens with no duplicate, and stores every report', async () => {
    const dsn = await server.database('tokens');
    const env = { PROFILER_DSN: dsn, PROFILER_MAX_REPORTS: '100000' };
    const kernels = [await startKernel(env), await startKernel(env)];
    try {
      const tokens = await askInTurn(kernels, 20_000, 32, (i) => `/shared/${i}`);
      assert.equal(tokens.length, 20_000);
      const untokened = tokens.filter((token) => !/^[0-9a-f]{6}$/.test(token)).length;
      // Both kernels run in this process, so a lease's answer can wait unread behind the
      // requests for longer than a request may wait for it (100 ms): those requests go without
      // a token, and the kernels say so. A handful may; most may not.
      const logged = kernels.flatMap((kernel) => kernel.logLines).join('');
      assert.ok(untokened < 400, `${untokened} requests have no token; the kernels logged:\n${logged}`);
      if (untokened > 0) assert.match(logged, /did not answer within 100 ms/, 'a request without a token is said');
      const issued = tokens.filter((token) => /^[0-9a-f]{6}$/.test(token));
      const duplicates = issued.length - new Set(issued).size;
      assert.equal(duplicates, 0, `${duplicates} tokens were handed out twice`);
      for (const kernel of kernels) await kernel.profiler!.writer.flush();
      const dropped = kernels.reduce((sum, kernel) => sum + kernel.profiler!.writer.dropped, 0);
      assert.equal(dropped, 20_000 - issued.length, 'only the requests without a token are counted as dropped');
      assert.equal(await storedCount(dsn), 20_000 - untokened);
      assert.equal(await kernels[1]!.profiler!.store.count(), 20_000 - untokened);
    } finally {
      await Promise.all(kernels.map((kernel) => kernel.close()));
    }
  });
});

describe('retention holds across instances: PROFILER_MAX_REPORTS=500 keeps 500', () => {
  it('keeps the newest 500 of 1,500 reports two services wrote, one retention lease between them', async () => {
    const dsn = await server.database('kept');
    const env = { PROFILER_DSN: dsn, PROFILER_MAX_REPORTS: '500' };
    const [a, b] = await Promise.all([startInProcess(env), startInProcess(env)]);
    try {
      const [sentA, sentB] = await Promise.all([
        sendMany(a, { count: 750, concurrency: 8, path: (i) => `/kept-a/${i}` }),
        sendMany(b, { count: 750, concurrency: 8, path: (i) => `/kept-b/${i}` }),
      ]);
      // A request whose token lease outlasts its bound goes without one (issue 27): on a loaded
      // machine a few may; retention is what this test is about.
      const tokens = [...sentA.tokens, ...sentB.tokens].filter((token) => token !== 'undefined'); // sendMany's String(no header)
      assert.ok(tokens.every((token) => /^[0-9a-f]{6}$/.test(token)));
      assert.ok(tokens.length > 1000, `${tokens.length} of 1,500 requests got a token`);
      // Each home page writes its service's queue first.
      for (const service of [a, b]) assert.equal((await ask(service, { path: '/_profiler' })).status, 200);
      assert.equal(await storedCount(dsn), 500);
      assert.deepEqual(await server.query(dsn, 'SELECT reports::int FROM vigil_report_count'), [{ reports: 500 }]);
      const newest = JSON.parse(
        (await ask(a, { path: '/_profiler/search?limit=1000', headers: JSON_ACCEPT })).body,
      ) as Array<{ url: string }>;
      assert.equal(newest.length, 500);
      assert.ok(
        newest.some((report) => report.url.includes('/kept-a/')) &&
          newest.some((report) => report.url.includes('/kept-b/')),
        "both services' reports are kept",
      );
      const lease = await server.query<{ holder: string }>(dsn, 'SELECT holder FROM vigil_retention_lease');
      assert.equal(lease.length, 1, 'one retention lease, held by one of them');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    assert.equal(await storedCount(dsn), 500, 'still 500 after both stopped');
  });
});

/** Runs the command line as a user would (from the build), with PROFILER_DSN set. */
function vigil(dsn: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runVigil(args, { VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-cli-pg-')), PROFILER_DSN: dsn, ...env });
}

describe('vigil profiler:list, show and purge work against PROFILER_DSN=postgres://', () => {
  it('says there is no store without creating one, then lists, shows and purges what two services stored', async () => {
    const dsn = await server.database('cli');
    const location = dsn.replace(`:${encodeURIComponent(PG_PASSWORD)}`, '');
    const none = await vigil(dsn, ['profiler:list']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, `No reports stored yet (no store at ${location}).\n`);
    assert.deepEqual(
      await server.query(dsn, "SELECT to_regclass('vigil_reports') IS NULL AS absent"),
      [{ absent: true }],
      'reading created nothing',
    );

    const services: Service[] = await Promise.all([
      startInProcess({ PROFILER_DSN: dsn }),
      startInProcess({ PROFILER_DSN: dsn }),
    ]);
    const tokens: string[] = [];
    try {
      for (const [i, path] of ['/robots.txt?from=cli', '/hello', '/nowhere'].entries())
        tokens.push(tokenOf(await ask(services[i % 2]!, { path })));
    } finally {
      // Stopping writes each queue.
      await Promise.all(services.map((service) => service.stop()));
    }

    const list = await vigil(dsn, ['profiler:list', '--json']);
    assert.equal(list.code, 0, list.stderr);
    // Newest first by arrival at the store: two services write their queues in their own time.
    assert.deepEqual(
      (JSON.parse(list.stdout) as Array<{ token: string }>).map((report) => report.token).sort(),
      [...tokens].sort(),
    );
    const table = await vigil(dsn, ['profiler:list', '--url', 'from=cli']);
    assert.match(
      table.stdout,
      new RegExp(`^${tokens[0]}\\s+.*GET\\s+404\\s+127\\.0\\.0\\.1\\s+.*/robots\\.txt\\?from=cli$`, 'm'),
    );
    const shown = await vigil(dsn, ['profiler:show', tokens[1]!, '--json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match((JSON.parse(shown.stdout) as { url: string }).url, /\/hello$/);
    const missing = await vigil(dsn, ['profiler:show', 'abcdef']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `vigil: token "abcdef" was not found in ${location}\n`);

    assert.equal(
      (await vigil(dsn, ['profiler:purge', '--retention'], { PROFILER_MAX_REPORTS: '1' })).stdout,
      'Deleted 2 reports; 1 left.\n',
    );
    assert.equal((await vigil(dsn, ['profiler:purge'])).stdout, 'Deleted 1 report; 0 left.\n');
    assert.equal((await vigil(dsn, ['profiler:list'])).stdout, 'No report matches.\n');
  });

  it('exits 1 with a message naming the store, not its password, while the server is down', async () => {
    const dsn = await server.database('cli_down');
    await server.stop();
    try {
      const run = await vigil(dsn, ['profiler:list']);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^vigil profiler:list: the report store postgres:\/\/vigil@127\.0\.0\.1:\d+\/cli_down_\w+ is unavailable: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/,
      );
      assertNoPassword(run.stderr);
    } finally {
      await server.start();
    }
  });
});

describe('a PROFILER_DSN or a login that cannot work stops the start with one line, never the password', () => {
  const FORM = 'postgres://user:password@host:port/database';
  for (const [what, dsn, message] of [
    [
      'a scheme that is not supported',
      `mysql://vigil:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:3306/vigil`,
      `PROFILER_DSN: the scheme "mysql:" is not supported; the supported schemes are sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite) and ${FORM} (PostgreSQL)`,
    ],
    [
      'a URL that cannot be parsed',
      `postgres://vigil:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:99999/vigil`,
      `PROFILER_DSN: not a valid PostgreSQL URL; the form is ${FORM}`,
    ],
  ] as const) {
    it(what, async () => {
      const { code, stderr } = await runMain({ PROFILER_DSN: dsn, VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-dsn-')) });
      assert.equal(code, 1);
      assert.equal(stderr, `vigil: cannot start: ${message}\n`);
      assertNoPassword(stderr);
    });
  }

  it('a wrong password', async () => {
    const dsn = (await server.database('login')).replace(encodeURIComponent(PG_PASSWORD), 'wrong-s3cret');
    const { code, stderr } = await runMain({ PROFILER_DSN: dsn, VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-login-')) });
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^vigil: cannot start: PROFILER_DSN: the report store postgres:\/\/vigil@127\.0\.0\.1:\d+\/login_\w+ cannot be opened: 28P01: password authentication failed for user "vigil"\n$/,
    );
    assert.doesNotMatch(stderr, /wrong-s3cret/);
  });
});
