/**
 * Issue 26, item 6: secrets in every shape the review found in clear (`test/fixtures/secret-corpus.ts`)
 * are redacted in the store, on every page of the profiler and in `vigil profiler:show`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runVigil } from '../support/command-line.js';
import { startInProcess } from '../support/in-process-service.js';
import { ask, type Service } from '../support/service.js';
import { secretCorpus, type SecretCase } from '../fixtures/secret-corpus.js';

const ROUTES = 'test/fixtures/secret-routes.ts';
let service: Service;
const corpus = secretCorpus('t26x');
const tokens = new Map<SecretCase, string>();
before(async () => {
  service = await startInProcess({ ROUTES, LOG_LEVEL: 'info' });
  for (const secretCase of corpus) tokens.set(secretCase, await send(secretCase));
});
after(() => service.stop());

/** The places of `text` that hold one of the case's secrets. */
function leaks(text: string, secrets: readonly string[]): string[] {
  return secrets
    .filter((secret) => text.includes(secret))
    .map((secret) => {
      const at = text.indexOf(secret);
      return `${secret} in …${text.slice(Math.max(0, at - 80), at + secret.length + 20)}…`;
    });
}

async function send(secretCase: SecretCase): Promise<string> {
  const answer = await ask(service, {
    method: secretCase.method,
    path: secretCase.path,
    headers: Object.fromEntries(secretCase.headers),
    ...(secretCase.body === undefined ? {} : { body: secretCase.body }),
  });
  const token = String(answer.headers['x-debug-token']);
  assert.match(token, /^[0-9a-f]{6}$/, `${secretCase.name}: answered ${answer.status} without a report`);
  // The search writes what is queued, so that the command line finds it in the store.
  await ask(service, { path: `/_profiler/search?token=${token}` });
  return token;
}

describe('no secret of the corpus is stored', () => {
  for (const secretCase of corpus) {
    it(secretCase.name, async () => {
      const stored = await ask(service, {
        path: `/_profiler/${tokens.get(secretCase)}`,
        headers: { accept: 'application/json' },
      });
      assert.equal(stored.status, 200);
      assert.deepEqual(leaks(stored.body, secretCase.secrets), []);
    });
  }
});

describe('no secret of the corpus is shown on a profiler page', () => {
  it('on every panel of every report', async () => {
    const found: string[] = [];
    for (const secretCase of corpus) {
      const token = tokens.get(secretCase)!;
      const first = await ask(service, { path: `/_profiler/${token}` });
      const panels = [...new Set([...first.body.matchAll(/\?panel=([a-z0-9_-]+)/gi)].map((match) => match[1]!))];
      assert.ok(
        panels.includes('logs') && panels.includes('request') && panels.includes('response'),
        `${secretCase.name}: panels ${panels.join(', ')}`,
      );
      for (const panel of panels) {
        const page = await ask(service, { path: `/_profiler/${token}?panel=${panel}` });
        found.push(
          ...leaks(page.body, secretCase.secrets).map((leak) => `${secretCase.name}, panel ${panel}: ${leak}`),
        );
      }
    }
    assert.deepEqual(found, []);
  });

  it('on the list of reports and in the search', async () => {
    const all = corpus.flatMap((secretCase) => secretCase.secrets);
    for (const path of ['/_profiler', '/_profiler/search?limit=50']) {
      for (const accept of ['text/html', 'application/json']) {
        const page = await ask(service, { path, headers: { accept } });
        assert.deepEqual(leaks(page.body, all), [], `${path} as ${accept}`);
      }
    }
  });
});

describe('no secret of the corpus is printed by vigil profiler:show', () => {
  it('as text and as JSON', async () => {
    const found: string[] = [];
    for (const secretCase of corpus) {
      for (const args of [[], ['--json']]) {
        const { code, stdout } = await runVigil(['profiler:show', tokens.get(secretCase)!, ...args], {
          VAR_DIR: service.varDir,
          ROUTES,
        });
        assert.equal(code, 0, secretCase.name);
        found.push(...leaks(stdout, secretCase.secrets).map((leak) => `${secretCase.name} ${args.join(' ')}: ${leak}`));
      }
    }
    assert.deepEqual(found, []);
  });
});
