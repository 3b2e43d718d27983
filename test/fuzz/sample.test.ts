/**
 * Issue 10, "Also": a bounded sample of the fuzz corpus, every case of items 1 to 8 and
 * the malformed-request families (200 cases, a fixed seed), sent over raw TLS to the
 * service in debug and in production mode. Every count must be zero; a failure lists the
 * cases, which `npm run fuzz -- --seed 20261010 --count 200 --case N` sends again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCampaign, type CampaignResult } from './campaign.js';
import { KINDS } from './checks.js';
import { buildCorpus } from './corpus.js';
import { startFuzzService, type FuzzService } from './fuzz-service.js';
import { findingLines } from './summary.js';

const SEED = 20261010;
const COUNT = 200;

for (const mode of ['debug', 'prod'] as const) {
  describe(`${mode} mode: ${COUNT} hostile requests over raw TLS (seed ${SEED})`, () => {
    let target: FuzzService | undefined;
    let result: CampaignResult;
    before(async () => {
      target = await startFuzzService(mode);
      const cases = buildCorpus(SEED, COUNT, { port: target.service.port, bait: target.bait });
      // The guard is a hang detector, not a speed limit: a case that needs it has frozen the service.
      result = await runCampaign({
        service: target.service,
        mode,
        cases,
        check: { roots: target.roots, canary: target.canary },
        guardMs: 30_000,
        probeEvery: 25,
      });
    });
    after(() => target?.stop());

    it('sends every case', () => {
      assert.equal(result.results.length + result.unsent, COUNT);
      assert.equal(result.unsent, 0, `${result.unsent} cases not sent: the service stopped answering`);
    });

    for (const kind of KINDS) {
      it(`${kind}: none`, () => {
        const only = {
          ...result,
          general: result.general.filter((finding) => finding.kind === kind),
          results: result.results.map((item) => ({
            ...item,
            findings: item.findings.filter((finding) => finding.kind === kind),
          })),
        };
        assert.deepEqual(findingLines(only).slice(1), []);
      });
    }
  });
}
