/**
 * `npm run bench:kept`: the CPU one kept error report costs in production. vigil standalone
 * serves a failing route (a log line, a statement, an error with a cause) at a fixed rate,
 * in alternating rounds: keeping every error (PROFILER_KEEP=errors, no bound per second)
 * keeping none of them (PROFILER_KEEP=slow: each is followed and counted, not kept), and
 * without the profiler (PROFILER_KEEP=none). The difference per request between the first
 * two, of the main thread and of all threads (the store writes on its own), is what keeping
 * a report costs: collecting, redacting, encoding and storing it; the third is the 500 itself.
 *
 *   npm run bench:kept                       6 rounds of 8 s at 400 requests a second
 *   npm run bench:kept -- --rate 800 --rounds 4
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median } from './load.js';
import { buildVigil, ROOT, startTarget } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '8' },
  },
});
const rate = Number(flags.rate);
const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);

buildVigil();
const work = mkdtempSync(join(tmpdir(), 'vigil-kept-'));
const variants = {
  kept: { PROFILER_KEEP: 'errors', PROFILER_KEEP_MAX_PER_SECOND: '10000' },
  followed: { PROFILER_KEEP: 'slow' },
  off: { PROFILER_KEEP: 'none' },
} as const;
type Variant = keyof typeof variants;
const cpu: Record<Variant, { main: number[]; all: number[] }> = {
  kept: { main: [], all: [] },
  followed: { main: [], all: [] },
  off: { main: [], all: [] },
};

for (let round = 0; round < rounds; round++) {
  const order: Variant[] = round % 2 === 0 ? ['kept', 'followed', 'off'] : ['off', 'followed', 'kept'];
  for (const variant of order) {
    const target = await startTarget('dist/src/main.js', {
      APP_ENV: 'prod',
      HOST: '127.0.0.1',
      PORT: '0',
      TLS: '0',
      LOG_LEVEL: 'error',
      VAR_DIR: join(work, `${variant}-${round}`),
      ROUTES: join(ROOT, 'dist/bench/targets/failing-routes.js'),
      PROFILER_MAX_REPORTS: '1000000',
      ...variants[variant],
    });
    const url = `${target.url}/orders/fail`;
    await autocannon({ url, connections: 8, duration: 2, overallRate: rate });
    const before = target.cpuMs();
    const result = await autocannon({ url, connections: 8, duration: seconds, overallRate: rate });
    const after = target.cpuMs();
    await target.stop();
    const requests = result.requests.total;
    if (result.non2xx !== requests) throw new Error(`${variant}: ${result.non2xx} of ${requests} answers were errors`);
    cpu[variant].main.push(((after.main - before.main) * 1000) / requests);
    cpu[variant].all.push(((after.all - before.all) * 1000) / requests);
    console.log(
      `round ${round + 1} ${variant}: ${requests} requests, main thread ${cpu[variant].main.at(-1)!.toFixed(1)} µs/req, all threads ${cpu[variant].all.at(-1)!.toFixed(1)} µs/req`,
    );
  }
}
rmSync(work, { recursive: true, force: true });

const paired = (of: 'main' | 'all') => median(cpu.kept[of].map((kept, round) => kept - cpu.followed[of][round]!));
console.log(`\n${rate} failing requests a second, ${rounds} rounds of ${seconds} s, Node ${process.version}`);
console.log(
  `kept: main thread ${median(cpu.kept.main).toFixed(1)} µs/req, all threads ${median(cpu.kept.all).toFixed(1)} µs/req`,
);
console.log(
  `followed, not kept: main thread ${median(cpu.followed.main).toFixed(1)} µs/req, all threads ${median(cpu.followed.all).toFixed(1)} µs/req`,
);
console.log(
  `no profiler: main thread ${median(cpu.off.main).toFixed(1)} µs/req, all threads ${median(cpu.off.all).toFixed(1)} µs/req`,
);
console.log(
  `one kept report costs: main thread ${paired('main').toFixed(1)} µs, all threads ${paired('all').toFixed(1)} µs (median of the rounds' differences)`,
);
