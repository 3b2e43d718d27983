/**
 * `npm run fuzz`: a seeded corpus of hostile requests sent over raw TLS to the service in
 * debug and in production mode, with a table of cases and findings by family. Exits 1
 * when anything was found.
 *
 *   npm run fuzz                          1,000 cases per mode, a fresh seed (printed)
 *   npm run fuzz -- --seed 7 --count 2000 a given corpus
 *   npm run fuzz -- --seed 7 --case 412   one case of that corpus again, with its answer
 *   npm run fuzz -- --seed 7 --show 412   print a case's bytes without sending them
 *   npm run fuzz -- --mode prod           one mode only (debug, prod or both)
 *   npm run fuzz -- --json out.json       every finding, for reading at leisure
 *   npm run fuzz -- --shapes 500          route shapes the matcher is fuzzed with first (issue 26)
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCampaign, type CampaignResult } from './campaign.js';
import type { FuzzCase, Mode } from './cases.js';
import { ISSUE_KINDS, KINDS } from './checks.js';
import { buildCorpus } from './corpus.js';
import { startFuzzService } from './fuzz-service.js';
import { freshSeed } from './prng.js';
import { fuzzRouteShapes, STALL_MS } from './route-shapes.js';
import { countsOf, findingLines, LEGEND, summaryTable } from './summary.js';

const { values: flags } = parseArgs({
  options: {
    seed: { type: 'string' },
    count: { type: 'string', default: '1000' },
    mode: { type: 'string', default: 'both' },
    case: { type: 'string' },
    show: { type: 'string' },
    guard: { type: 'string', default: '30000' },
    json: { type: 'string' },
    limit: { type: 'string', default: '25' },
    shapes: { type: 'string', default: '300' },
  },
});

const seed = flags.seed === undefined ? freshSeed() : Number(flags.seed);
const count = Number(flags.count);
const modes: Mode[] = flags.mode === 'both' ? ['debug', 'prod'] : [flags.mode as Mode];
if (
  !Number.isInteger(seed) ||
  !Number.isInteger(count) ||
  !modes.every((mode) => mode === 'debug' || mode === 'prod')
) {
  process.stderr.write(
    'usage: npm run fuzz -- [--seed N] [--count N] [--mode debug|prod|both] [--case ID] [--show ID] [--guard MS] [--json FILE]\n',
  );
  process.exit(2);
}

if (flags.show !== undefined) {
  const fuzzCase = buildCorpus(seed, count, {
    port: 8443,
    bait: { fifo: '<fifo>', large: '<large file>', key: '<tls key>' },
  }).find((item) => item.id === Number(flags.show));
  if (!fuzzCase) throw new Error(`no case ${flags.show} in a corpus of ${count}`);
  process.stdout.write(
    `${describeCase(fuzzCase)}\n${JSON.stringify(Buffer.concat(fuzzCase.chunks).toString('latin1'))}\n`,
  );
  process.exit(0);
}

process.stdout.write(
  `fuzz: seed ${seed}, ${count} cases per mode, modes ${modes.join(' and ')} (repeat with --seed ${seed} --count ${count})\n`,
);

// The route matcher in this process first: random shapes against the old expression, and long paths timed.
const shapeRun = fuzzRouteShapes(seed, Number(flags.shapes));
const shapeLine = `route shapes: ${shapeRun.shapes} shapes, ${shapeRun.comparisons} short paths (${shapeRun.matched} matched, ${shapeRun.almost} failed a requirement), ${shapeRun.hostilePaths} long paths; crashes ${shapeRun.crashes.length}, disagreements with the old expression ${shapeRun.disagreements.length}, stalls over ${STALL_MS} ms ${shapeRun.stalls.length} (slowest ${Math.round(shapeRun.slowestMs)} ms)`;
process.stdout.write(`${shapeLine}\n`);
for (const line of [...shapeRun.crashes, ...shapeRun.disagreements, ...shapeRun.stalls].slice(0, Number(flags.limit)))
  process.stdout.write(`  ${line}\n`);
const campaigns: CampaignResult[] = [];
for (const mode of modes) {
  const target = await startFuzzService(mode);
  try {
    let cases = buildCorpus(seed, count, { port: target.service.port, bait: target.bait });
    if (flags.case !== undefined) cases = cases.filter((item) => item.id === Number(flags.case));
    const started = performance.now();
    const result = await runCampaign({
      service: target.service,
      mode,
      cases,
      check: { roots: target.roots, canary: target.canary },
      guardMs: Number(flags.guard),
      probeEvery: 25,
      onCase: ({ fuzzCase, answers }) => {
        if (flags.case !== undefined) {
          process.stdout.write(
            `${describeCase(fuzzCase)}\n${answers.map((answer) => `-> ${answer.status} ${answer.reason}\n${answer.rawHeaders.map(([name, value]) => `   ${name}: ${value}`).join('\n')}\n   (${answer.body.length} bytes) ${JSON.stringify(answer.body.toString('latin1').slice(0, 300))}`).join('\n')}\n`,
          );
        } else if (fuzzCase.id % 100 === 0) {
          process.stdout.write(`  ${mode}: ${fuzzCase.id} of ${cases.length} sent\n`);
        }
      },
    });
    campaigns.push(result);
    process.stdout.write(
      `\n${mode} mode: ${result.results.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s\n${summaryTable(result)}\n`,
    );
    const lines = findingLines(result, Number(flags.limit));
    if (lines.length > 0) process.stdout.write(`\nfindings (${mode}):\n${lines.join('\n')}\n`);
  } finally {
    await target.stop();
  }
}

process.stdout.write(`\n${LEGEND}\n\nclosing note, seed ${seed}, ${count} cases per mode:\n  ${shapeLine}\n`);
for (const result of campaigns) {
  const counts = countsOf(result);
  const issue = ISSUE_KINDS.map((kind) => `${kind} ${counts[kind]}`).join(', ');
  const more = KINDS.filter((kind) => !ISSUE_KINDS.includes(kind))
    .map((kind) => `${kind} ${counts[kind]}`)
    .join(', ');
  process.stdout.write(`  ${result.mode}: ${result.results.length} sent; ${issue}; also ${more}\n`);
}
if (flags.json !== undefined) {
  const dump = campaigns.map((result) => ({
    mode: result.mode,
    general: result.general,
    findings: result.results
      .filter((item) => item.findings.length > 0)
      .map(({ fuzzCase, findings }) => ({ id: fuzzCase.id, family: fuzzCase.family, name: fuzzCase.name, findings })),
  }));
  writeFileSync(flags.json, JSON.stringify({ seed, count, campaigns: dump }, null, 2));
}
const shapeFindings = shapeRun.crashes.length + shapeRun.disagreements.length + shapeRun.stalls.length;
const found =
  shapeFindings > 0 || campaigns.some((result) => Object.values(countsOf(result)).some((value) => value > 0));
process.exit(found ? 1 : 0);

function describeCase(fuzzCase: FuzzCase): string {
  return `#${fuzzCase.id} ${fuzzCase.family} / ${fuzzCase.name} (${fuzzCase.chunks.reduce((sum, chunk) => sum + chunk.length, 0)} bytes, ${fuzzCase.answers} answer(s) required${fuzzCase.halfClose ? ', then end of stream' : ''})`;
}
