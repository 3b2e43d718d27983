/**
 * Scenario (g): does a large JSON body stall everyone else? `GET /hello` is loaded alone,
 * then again while a side client keeps sending hostile JSON bodies: 100 MB of `[{},{},...]`
 * (the seed's POST_MAX_SIZE) and bodies just under PARSED_BODY_MAX_SIZE in the shapes that
 * cost JSON.parse the most. The longest /hello wait and the service's peak memory tell.
 */
import { request } from 'node:https';
import { load, type LoadResult } from './load.js';
import type { RunningTarget } from './targets.js';

export interface BodyStallResult {
  alone: LoadResult;
  withBodies: LoadResult;
  /** Hostile bodies sent during the loaded run, by the status they got. */
  bodies: Record<string, number>;
  peakRssMb: number;
}

const MB = 1024 * 1024;
const PARSED_LIMIT = 512 * 1024;

/** Bodies just under the parsed-body limit: many tiny objects, and deep nesting. */
const NEAR_LIMIT_BODIES = [
  Buffer.from(`[${'{},'.repeat(Math.floor((PARSED_LIMIT - 16) / 3))}{}]`),
  Buffer.from(`${'['.repeat(PARSED_LIMIT / 2 - 8)}${']'.repeat(PARSED_LIMIT / 2 - 8)}`),
];

/** PUTs `size` bytes of JSON (streamed from `chunk` repeated) and resolves with the status. */
function sendBody(url: URL, chunk: Buffer, size: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/items/1',
        method: 'PUT',
        rejectUnauthorized: false,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': size },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        req.destroy(); // an answer before the whole body: stop sending it
      },
    );
    req.on('error', () => resolve(0));
    let sent = 0;
    const pump = () => {
      while (sent < size && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

export async function runBodyStall(
  target: RunningTarget,
  options: { seconds: number; connections: number },
): Promise<BodyStallResult> {
  const url = new URL(target.url);
  const hello = `${target.url}/hello`;
  const alone = await load(hello, { ...options, headers: {} });
  const bodies: Record<string, number> = {};
  let peakRssMb = target.rssMb();
  let running = true;
  const watch = setInterval(() => (peakRssMb = Math.max(peakRssMb, target.rssMb())), 20);
  const hugeChunk = Buffer.from('{},'.repeat(64 * 1024));
  const side = (async () => {
    for (let i = 0; running; i++) {
      const status =
        i % 3 === 0
          ? await sendBody(url, hugeChunk, 100 * MB)
          : await sendBody(url, NEAR_LIMIT_BODIES[i % 2]!, NEAR_LIMIT_BODIES[i % 2]!.length);
      bodies[status] = (bodies[status] ?? 0) + 1;
    }
  })();
  try {
    const withBodies = await load(hello, { ...options, headers: {} });
    return { alone, withBodies, bodies, peakRssMb };
  } finally {
    running = false;
    await side;
    clearInterval(watch);
  }
}
