/**
 * `npm run bench:instructions`: the instructions a request costs each target's main thread,
 * counted by valgrind (callgrind) over a fixed number of requests after a warm-up. A count
 * does not move with the machine's load the way time does, so it settles what a change of a
 * few per cent in production costs. Needs valgrind (not an npm package: run it where it is
 * installed); `npm test` and `npm run bench` never need it.
 *
 *   npm run bench:instructions                        (k), (kr), their bare twins, (j) and its twin
 *   npm run bench:instructions -- --only k,kl         those targets
 *   npm run bench:instructions -- --functions k,kl    also the functions whose count differs most
 *   npm run bench:instructions -- --repeat 3          each target counted three times (default two)
 *
 * Both semi-spaces are fixed at 16 MB: V8 sizes the young generation by how fast a program
 * allocates in time, and a program under valgrind runs some fifty times slower, so without
 * it the count of collections, not the code, would tell the targets apart. Work on timers
 * (the heap guard's sampling) runs per second, not per request, and so weighs more here
 * than at full speed. The warm-up's connections are closed and the counted requests come
 * on new ones, as in `npm run bench`: V8 runs a server's requests differently once its
 * first connections have closed. Counts are made two at a time, never alone: a count made
 * alone lands in another state. Counts of one target then agree within a few hundred
 * instructions; each is counted more than once, every count is printed, and the median is
 * the figure.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './load.js';
import { buildVigil, ROOT } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    warm: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '5000' },
    functions: { type: 'string' },
    repeat: { type: 'string', default: '2' },
  },
});

interface Target {
  id: string;
  label: string;
  script: string;
  env: Record<string, string>;
  paths: readonly string[];
  /** The target it is compared with. */
  twin?: string;
}

const work = mkdtempSync(join(tmpdir(), 'vigil-instructions-'));
/** The JIT maps V8 writes to /tmp (`--perf-basic-prof`), removed at the end. */
const maps: string[] = [];
/** Targets under callgrind: a count that fails ends the run, and must not leave its pair's running. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
const K_PATHS = ['/hello', '/users/1'];
const J_PATHS = ['/hello', '/status'];
const prod = (dir: string) => ({ APP_ENV: 'prod', HOST: '127.0.0.1', PORT: '0', VAR_DIR: join(work, dir) });

const targets: Target[] = [
  {
    id: 'k',
    label: 'examples/fastify-app with vigil, production (HTTP)',
    script: 'bench/targets/fastify-app.ts',
    env: { ...prod('k'), LOG_LEVEL: 'warn' },
    paths: K_PATHS,
    twin: 'kb',
  },
  {
    id: 'kr',
    label: 'examples/fastify-app with vigil, production, PROFILER_KEEP=errors,slow (HTTP)',
    script: 'bench/targets/fastify-app.ts',
    env: { ...prod('kr'), LOG_LEVEL: 'warn', PROFILER_KEEP: 'errors,slow' },
    paths: K_PATHS,
    twin: 'kb',
  },
  {
    id: 'kb',
    label: 'bare Fastify, the same routes, no logger (HTTP)',
    script: 'bench/targets/fastify-routes.ts',
    env: { ROUTES_OF: 'k' },
    paths: K_PATHS,
  },
  {
    id: 'kl',
    label: "bare Fastify, the same routes, pino at the example's level (HTTP)",
    script: 'bench/targets/fastify-routes.ts',
    env: { ROUTES_OF: 'k', LOGGER_LEVEL: 'warn' },
    paths: K_PATHS,
    twin: 'kb',
  },
  {
    id: 'j',
    label: 'vigil production, standalone (HTTPS)',
    script: 'dist/src/main.js',
    env: { ...prod('j'), LOG_LEVEL: 'info', ROUTES: join(ROOT, 'dist/bench/targets/app-routes.js') },
    paths: J_PATHS,
    twin: 'jb',
  },
  {
    id: 'jb',
    label: "bare Fastify, the same routes, vigil's certificate (HTTPS)",
    script: 'bench/targets/fastify-routes.ts',
    env: {
      ROUTES_OF: 'j',
      TLS_KEY: join(work, 'j', 'tls', 'localhost.key'),
      TLS_CERT: join(work, 'j', 'tls', 'localhost.crt'),
    },
    paths: J_PATHS,
  },
];

interface Counted {
  perRequest: number;
  /** The callgrind file of the main thread, and the JIT map that names its code. */
  file: string;
  map: string;
}

/** Starts `target` under callgrind, sends the warm-up, then counts `requests` of its main thread. */
/**
 * {@link count}, started again (twice at most) when the target's start outlasted Fastify's
 * plugin timeout: instrumented, the start of a target that opens its store (kr) takes some
 * 10 s, and did not always make it.
 */
async function countStarted(target: Target, warm: number, requests: number): Promise<Counted> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await count(target, warm, requests);
    } catch (error) {
      if (attempt === 3 || !String(error).includes('AVV_ERR_PLUGIN_EXEC_TIMEOUT')) throw error;
      console.log(`(${target.id}) did not start within Fastify's plugin timeout under callgrind: started again`);
    }
  }
}

async function count(target: Target, warm: number, requests: number, named = false): Promise<Counted> {
  const runner = target.script.endsWith('.js') ? [] : ['--import', 'tsx'];
  const out = join(work, `callgrind-${target.id}`);
  const env = { PATH: process.env.PATH ?? '', ...target.env };
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      // Named counts start uninstrumented, several times faster: with the JIT map's writing, an
      // instrumented start outlasted Fastify's 10 s plugin timeout. Totals keep the instrumented
      // start: started uninstrumented, (k) settled in a state some 35,000 instructions a request
      // dearer (Node's nextTick objects migrated map at each tick), which no instrumented count showed.
      ...(named ? ['--instr-atstart=no'] : []),
      `--callgrind-out-file=${out}.%p`,
      process.execPath,
      '--min-semi-space-size=16',
      '--max-semi-space-size=16',
      // The JIT map names the code for --functions; it also moves the count, so totals are taken without it.
      ...(named ? ['--perf-basic-prof', `--logfile=${join(work, `v8-${target.id}.log`)}`] : []),
      ...runner,
      target.script,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  const map = `/tmp/perf-${child.pid}.map`;
  maps.push(map);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`${target.id} did not start:\n${output}`)), 180_000);
      child.stdout.on('data', () => {
        const match = /listening on (\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolveUrl(match[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`${target.id} exited with ${code}:\n${output}`)));
    });
    // callgrind_control finds the process by a pipe named after HOST, so it needs the target's.
    if (named)
      execFileSync('callgrind_control', ['--instr=on', String(child.pid)], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
    await send(url, target.paths, warm);
    execFileSync('callgrind_control', ['--zero', String(child.pid)], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    await send(url, target.paths, requests);
    execFileSync('callgrind_control', ['--dump', String(child.pid)], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
  } finally {
    // A target that already exited (it failed to start) has had its exit event.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGKILL');
      await exited;
    }
  }
  // The main thread's file is thread 1 of the dump.
  const file = join(
    work,
    readdirSync(work).find((name) => name.startsWith(`callgrind-${target.id}.${child.pid}.1-01`))!,
  );
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!total) throw new Error(`no count in ${file}`);
  return { perRequest: Number(total[1]) / requests, file, map };
}

/** `total` requests over four keep-alive connections, the paths in turn. */
async function send(url: string, paths: readonly string[], total: number): Promise<void> {
  const https = url.startsWith('https:');
  const agent = https
    ? new HttpsAgent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false })
    : new HttpAgent({ keepAlive: true, maxSockets: 4 });
  const ask = (path: string) =>
    new Promise<void>((resolveAsk, reject) => {
      const request = (https ? httpsRequest : httpRequest)(`${url}${path}`, { agent }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`${path}: ${response.statusCode}`));
        response.resume();
        response.once('end', resolveAsk);
      });
      request.once('error', reject);
      request.end();
    });
  let sent = 0;
  const connection = async () => {
    while (sent < total) await ask(paths[sent++ % paths.length]!);
  };
  await Promise.all([connection(), connection(), connection(), connection()]);
  agent.destroy();
}

/** Instructions per request by function (the function's own, not its callees'), JIT code named from its map. */
function byFunction({ file, map }: Counted, requests: number): Map<string, number> {
  const jit = readFileSync(map, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return {
        start: Number.parseInt(start!, 16),
        end: Number.parseInt(start!, 16) + Number.parseInt(size!, 16),
        name: name.join(' '),
      };
    })
    .sort((a, b) => a.start - b.start);
  const nameAt = (address: number): string => {
    let low = 0;
    let high = jit.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (jit[middle]!.start <= address) low = middle + 1;
      else high = middle - 1;
    }
    const code = jit[high];
    // The tier mark (`*` optimized, `^` baseline...) and the column are left out, to add up a function's tiers.
    return code && address < code.end
      ? code.name.replace(/^(\w+):[*~^+]?/, '$1:').replace(/:\d+:\d+$/, '')
      : 'JIT code, unnamed';
  };
  const names = new Map<string, string>();
  const named = (spec: string): string => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!match) return spec;
    if (match[2] !== undefined) names.set(match[1]!, match[2]);
    return names.get(match[1]!)!;
  };
  const own = new Map<string, number>();
  let fn = '';
  let callCost = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = named(line.slice(3));
    else if (line.startsWith('cfn=')) named(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[+\-*\d]/.test(line)) {
      // The line after `calls=` is the callee's cost, not the caller's own.
      if (callCost) callCost = false;
      else {
        const address = /^0x([0-9a-f]+)$/.exec(fn);
        const name = address ? nameAt(Number.parseInt(address[1]!, 16)) : fn;
        own.set(name, (own.get(name) ?? 0) + Number(line.trim().split(/\s+/)[1] ?? 0));
      }
    }
  }
  for (const [name, cost] of own) own.set(name, cost / requests);
  return own;
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.error('bench:instructions needs valgrind (apt install valgrind); npm test and npm run bench do not.');
    process.exit(1);
  }
  const only = flags.only?.split(',').map((id) => id.trim());
  const compared = flags.functions?.split(',').map((id) => id.trim());
  const chosen = targets.filter((target) => !only || only.includes(target.id) || compared?.includes(target.id));
  const warm = Number(flags.warm);
  const requests = Number(flags.requests);
  buildVigil();
  // (j) first: (jb) serves with the certificate it writes.
  const ordered = [...chosen].sort((a, b) => Number(b.id === 'j') - Number(a.id === 'j'));
  console.log(
    `bench:instructions: ${warm} requests to warm up, then ${requests} counted, main thread, Node ${process.version}`,
  );
  const repeat = Math.max(1, Number(flags.repeat));
  const counts = new Map<string, number[]>(chosen.map((target) => [target.id, []]));
  // Two at a time, always in pairs: a count made alone lands in another state (bare Fastify
  // read 114,700 to 115,000 alone, 79,200 beside another count), so none is made alone.
  const queue = Array.from({ length: repeat }, () => ordered).flat();
  if (queue.length % 2 === 1) queue.push(queue.at(-1)!);
  const certificate = join(work, 'j', 'tls', 'localhost.crt');
  const run = async (target: Target): Promise<void> => {
    // (jb) serves with the certificate (j) writes when it first starts.
    if (target.id === 'jb' && chosen.some((other) => other.id === 'j'))
      while (!existsSync(certificate)) await new Promise((wait) => setTimeout(wait, 500));
    counts.get(target.id)!.push((await countStarted(target, warm, requests)).perRequest);
  };
  for (let pair = 0; pair < queue.length; pair += 2) await Promise.all([run(queue[pair]!), run(queue[pair + 1]!)]);
  const perRequest = new Map([...counts].map(([id, all]) => [id, median(all)]));
  console.log('| target | instructions per request (median) | counts | against its twin |\n|---|---:|---|---:|');
  for (const target of chosen) {
    const own = perRequest.get(target.id)!;
    const twin = target.twin === undefined ? undefined : perRequest.get(target.twin);
    const against = twin === undefined ? '' : `${(own / twin).toFixed(3)} of (${target.twin})`;
    const all = counts.get(target.id)!.map(Math.round).join(', ');
    console.log(`| (${target.id}) ${target.label} | ${Math.round(own)} | ${all} | ${against} |`);
  }
  if (perRequest.has('k') && perRequest.has('kl'))
    console.log(`(k) against (kl), the same logger: ${(perRequest.get('k')! / perRequest.get('kl')!).toFixed(3)}`);
  if (compared?.length === 2) {
    // Counted again with the JIT map, which moves the totals a little: for names, not for totals.
    const named = await Promise.all(
      compared.map((id) => count(targets.find((target) => target.id === id)!, warm, requests, true)),
    );
    const [a, b] = named.map((result) => byFunction(result, requests));
    const rows = [...new Set([...a!.keys(), ...b!.keys()])]
      .map((name) => ({ name, a: a!.get(name) ?? 0, b: b!.get(name) ?? 0 }))
      .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
      .slice(0, 40);
    console.log(
      `\nOwn instructions per request, (${compared[0]}) against (${compared[1]}), largest differences first:`,
    );
    console.log(`| difference | (${compared[0]}) | (${compared[1]}) | function |\n|---:|---:|---:|---|`);
    for (const row of rows)
      console.log(
        `| ${Math.round(row.a - row.b)} | ${Math.round(row.a)} | ${Math.round(row.b)} | ${row.name.slice(0, 110)} |`,
      );
  }
  const file = join(ROOT, 'bench', 'results', `instructions-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        warm,
        requests,
        counts: Object.fromEntries(counts),
      },
      null,
      2,
    ),
  );
  console.log(`Written to ${file}`);
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
  for (const map of maps) rmSync(map, { force: true });
}
