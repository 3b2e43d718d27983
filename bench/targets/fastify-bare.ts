/** (b) Bare Fastify answering its default 404. Prints its URL. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
