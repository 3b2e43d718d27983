/**
 * `npm run bench:ab`: the debug 404 of this tree against the same 404 of another revision,
 * side by side in alternating rounds, to see whether one change moved it. The other
 * revision is checked out in a temporary git worktree and compiled there, and both trees
 * are measured as deployed (`dist/`), as `npm run bench` measures (d).
 *
 *   npm run bench:ab                          against HEAD (what the working tree changed), 10 rounds of 5 s
 *   npm run bench:ab -- --base HEAD~3 --rounds 16 --seconds 4
 *   npm run bench:ab -- --env SOME_SETTING=1  this tree with a setting the base goes without
 *   npm run bench:ab -- --routes              (j) instead: production, ROUTES = bench/targets/app-routes.ts, GET /hello
 *
 * Each round loads one server, then the other (the order alternates), and reads each
 * server's main-thread CPU from /proc. What it prints per round and as medians: requests
 * per second, main-thread and all-thread CPU per request. The paired difference of each
 * round (this tree minus the base) and how many rounds this tree was lower are what to
 * quote: on a shared machine one round differs from the next by 15 % or more, and only a
 * difference that holds round after round is one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load, loader, median, SEED_HEADERS } from './load.js';
import { buildVigil, ROOT, startTarget, type RunningTarget } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    env: { type: 'string', multiple: true, default: [] },
    routes: { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const connections = Number(flags.connections);
if (!(rounds >= 2 && seconds >= 1 && connections >= 1))
  throw new Error('--rounds must be at least 2, --seconds and --connections at least 1');
const extraEnv = Object.fromEntries(
  flags.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env takes NAME=value, not "${pair}"`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

interface Side {
  name: string;
  target: RunningTarget;
  rps: number[];
  mainUs: number[];
  allUs: number[];
}

function git(args: string[], cwd = ROOT): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed:\n${run.stderr}`);
  return run.stdout.trim();
}

/** The base revision checked out beside this tree, sharing its node_modules (compiled by the caller, once it can remove it). */
function checkOutBase(work: string): { dir: string; commit: string } {
  const commit = git(['rev-parse', '--verify', `${flags.base}^{commit}`]);
  const dir = join(work, 'base');
  git(['worktree', 'add', '--detach', dir, commit]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, commit };
}

async function main(): Promise<void> {
  const tool = await loader();
  const work = mkdtempSync(join(tmpdir(), 'vigil-ab-'));
  // --routes: (j), an application route in production, with each tree's compiled routes module.
  const env = (dir: string, tree = ROOT): Record<string, string> =>
    flags.routes
      ? {
          APP_ENV: 'prod',
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'info',
          VAR_DIR: join(work, dir),
          ROUTES: join(tree, 'dist/bench/targets/app-routes.js'),
        }
      : {
          APP_ENV: 'dev',
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'warn',
          VAR_DIR: join(work, dir),
          PROFILER_MAX_REPORTS: '5000000',
          PROFILER_MAX_AGE: '30d',
        };
  const path = flags.routes ? '/hello' : '/robots.txt';
  let base: { dir: string; commit: string } | undefined;
  const sides: Side[] = [];
  try {
    base = checkOutBase(work);
    buildVigil(base.dir);
    buildVigil();
    const changed =
      git(['status', '--porcelain', '--untracked-files=no']) !== '' || git(['rev-parse', 'HEAD']) !== base.commit;
    if (!changed && Object.keys(extraEnv).length === 0)
      process.stdout.write('This tree is the base revision: both sides run the same code (a check of the noise).\n');
    sides.push({
      name: 'base',
      target: await startTarget(join(base.dir, 'dist/src/main.js'), env('base', base.dir), base.dir),
      rps: [],
      mainUs: [],
      allUs: [],
    });
    sides.push({
      name: 'this tree',
      target: await startTarget('dist/src/main.js', { ...env('this'), ...extraEnv }),
      rps: [],
      mainUs: [],
      allUs: [],
    });
    process.stdout.write(
      `${base.commit.slice(0, 7)} (${flags.base}) against this tree${flags.env.length ? ` with ${flags.env.join(' ')}` : ''}: ${rounds} rounds of ${seconds} s, ${connections} connections, ${tool}\n`,
    );
    for (const side of sides)
      await load(`${side.target.url}${path}`, { seconds: 2, connections, headers: SEED_HEADERS }); // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const side of round % 2 ? sides : [...sides].reverse()) {
        const before = side.target.cpuMs();
        const result = await load(`${side.target.url}${path}`, { seconds, connections, headers: SEED_HEADERS });
        const after = side.target.cpuMs();
        if (result.requests === 0) throw new Error(`${side.name} answered no request in round ${round}`);
        const perRequest = (ms: number) => (ms * 1000) / result.requests;
        side.rps.push(result.rps);
        side.mainUs.push(perRequest(after.main - before.main));
        side.allUs.push(perRequest(after.all - before.all));
        process.stdout.write(
          `  round ${round} ${side.name}: ${result.rps.toFixed(0)} req/s, main thread ${side.mainUs.at(-1)!.toFixed(1)} µs/req, all threads ${side.allUs.at(-1)!.toFixed(1)} µs/req\n`,
        );
      }
    }
    const [was, now] = sides as [Side, Side];
    const differences = now.mainUs.map((us, i) => us - was.mainUs[i]!);
    const lower = differences.filter((difference) => difference < 0).length;
    process.stdout.write(
      [
        '',
        '| | req/s | main thread µs/req | all threads µs/req |',
        '|---|---:|---:|---:|',
        ...sides.map(
          (side) =>
            `| ${side.name} | ${median(side.rps).toFixed(0)} | ${median(side.mainUs).toFixed(1)} | ${median(side.allUs).toFixed(1)} |`,
        ),
        '',
        `Main thread, this tree minus the base, per round: ${differences.map((difference) => difference.toFixed(1)).join(', ')} µs; median ${median(differences).toFixed(1)} µs; lower in ${lower} of ${rounds} rounds.`,
        '',
      ].join('\n'),
    );
  } finally {
    await Promise.all(sides.map((side) => side.target.stop()));
    if (base && existsSync(base.dir)) git(['worktree', 'remove', '--force', base.dir]);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
