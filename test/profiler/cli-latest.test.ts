/**
 * Issue 44, item 6: `latest` names the newest report wherever the command line takes a
 * token, found as /_profiler/latest finds it, and `profiler:show` prints the exception's
 * chain of causes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { tokenOf } from '../support/answers.js';
import { runVigil } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask } from '../support/service.js';

let varDir: string;
let chain: string;
before(async () => {
  const service = await startInProcess({ ROUTES: 'test/fixtures/exception-routes.ts' });
  varDir = service.varDir;
  await ask(service, { path: '/hello' });
  chain = tokenOf(await ask(service, { path: '/cause-chain' }));
  // Stopping flushes the queue, so every report is in the store the commands read.
  await service.stop();
});

describe('profiler:show latest prints the newest report, with its chain of causes', () => {
  it('shows the request answered last, each cause with its class, message and raise site', async () => {
    const run = await runVigil(['profiler:show', 'latest'], { VAR_DIR: varDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Report ${chain}\\n  GET https://localhost:\\d+/cause-chain\\n`));
    assert.match(
      run.stdout,
      new RegExp(
        [
          '\\nException\\n  Error \\(VIGIL_ERR_INTERNAL, status 500\\): checkout failed\\n',
          '  raised at .*test/fixtures/exception-routes\\.ts:\\d+\\n',
          '(?:  .*\\n)*',
          '  Caused by TypeError: payment declined\\n',
          '    raised at .*test/fixtures/exception-routes\\.ts:\\d+\\n',
          '  Caused by Error: upstream answered 503\\n',
          '    raised at .*test/fixtures/exception-routes\\.ts:\\d+\\n',
        ].join(''),
      ),
    );
    const byToken = await runVigil(['profiler:show', chain], { VAR_DIR: varDir });
    assert.equal(byToken.stdout, run.stdout, 'the same text as under its token');
  });

  it('takes latest in any case, with --json too', async () => {
    const run = await runVigil(['profiler:show', 'LATEST', '--json'], { VAR_DIR: varDir });
    assert.equal((JSON.parse(run.stdout) as { token: string }).token, chain);
  });

  it('says no report is stored yet on an empty store, with exit code 1', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vigil-empty-'));
    const run = await runVigil(['profiler:show', 'latest'], { VAR_DIR: empty });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^vigil: no report is stored yet in .*profiler\.sqlite$/m);
  });
});

describe('profiler:list --token latest lists the newest report only', () => {
  it('prints it, and combines with the other filters', async () => {
    const run = await runVigil(['profiler:list', '--token', 'latest', '--json'], { VAR_DIR: varDir });
    assert.deepEqual(
      (JSON.parse(run.stdout) as Array<{ token: string }>).map((report) => report.token),
      [chain],
    );
    const none = await runVigil(['profiler:list', '--token', 'latest', '--status-code', '200'], { VAR_DIR: varDir });
    assert.equal(none.stdout, 'No report matches.\n');
  });
});
