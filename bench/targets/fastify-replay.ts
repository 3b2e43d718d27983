/**
 * (c) Bare Fastify over HTTPS sending the exact status, headers and body vigil sent for
 * `GET /robots.txt` (captured by the bench into the file named by REPLAY), with no work
 * per request: what vigil would cost if rendering and reporting were free.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

interface Replay {
  status: number;
  headers: Record<string, string>;
  body: string;
  key: string;
  cert: string;
}

const replay = JSON.parse(readFileSync(process.env.REPLAY!, 'utf8')) as Replay;
const body = Buffer.from(replay.body);
const app = Fastify({ logger: false, https: { key: replay.key, cert: replay.cert } });
app.setNotFoundHandler((_request, reply) => {
  reply.code(replay.status).headers(replay.headers).send(body);
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
