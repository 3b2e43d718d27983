/**
 * The demo application: `ROUTES=examples/demo-routes.ts npm start`.
 * Each route shows one part of the routes API; four show the limits, the `/demo/*` routes
 * fail on purpose to show the debug page, and `collectors` adds a panel to every debug report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineRoutes, type Collector } from '../src/index.js';

/** `?name=N` as a whole number from 0 to `max`, else `fallback`. */
function wholeNumber(value: unknown, fallback: number, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : fallback;
  return Math.min(number, max);
}

/** A stand-in for a database driver that cannot connect: its error has a low-level cause. */
async function connect(host: string, port: number): Promise<never> {
  await sleep(1);
  const refused = new Error(`connect ECONNREFUSED ${host}:${port}`);
  throw new TypeError(`The database client could not connect to ${host}`, { cause: refused });
}

/** A stand-in for a price service that does not answer. */
async function priceFrom(source: string): Promise<number> {
  await sleep(1);
  throw new RangeError(`The ${source} price source timed out`);
}

export default defineRoutes((routes) => {
  routes.get('/hello', () => 'hello');

  routes.on(['GET', 'POST'], '/items', ({ request }) => (request.method === 'POST' ? { created: true } : { items: [] }));

  routes.put('/items/{id}', ({ params }) => `item ${params.id}`, { requirements: { id: '\\d+' } });

  routes.get('/with-slash/', () => 'with slash');

  // An HTML page under a strict Content-Security-Policy: in debug mode the kernel adds its toolbar.
  routes.get('/page', ({ reply }) => {
    reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'none'");
    return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A page</title></head><body><h1>A page of the application</h1><p>In debug mode the toolbar sits at its foot.</p></body></html>';
  });

  // Files arrive on disk (UPLOAD_MAX_FILESIZE each) and are removed after the response.
  routes.post('/upload', ({ files, body }) => ({
    files: files.map((file) => ({ field: file.field, name: file.filename, size: file.size, type: file.mimetype })),
    fields: body ?? {},
  }));

  // Awaits N ms in this process; at MAX_EXECUTION_TIME its signal fires and the client gets a 500.
  routes.get('/slow', async ({ query, signal }) => {
    const ms = wholeNumber(query.ms, 1000, 3_600_000);
    await sleep(ms, undefined, { signal });
    return { slept: ms };
  });

  // Busy-loops N ms in a worker process: the service keeps answering meanwhile.
  routes.get(
    '/spin',
    ({ query }) => {
      const ms = wholeNumber(query.ms, 1000, 3_600_000);
      const end = Date.now() + ms;
      let turns = 0;
      while (Date.now() < end) turns++;
      return { spun: ms, turns };
    },
    { isolated: true },
  );

  // Allocates N MB in a worker process and writes every page, as Buffers (the default) or
  // as JS arrays (`?kind=array`); over MEMORY_LIMIT the client gets a 500 and the worker is replaced.
  routes.get(
    '/hog',
    ({ query }) => {
      const mb = wholeNumber(query.mb, 8, 64 * 1024);
      const kept: unknown[] = [];
      for (let i = 0; i < mb; i++) {
        if (query.kind === 'array') kept.push(new Array(128 * 1024).fill(i + 0.5)); // 8-byte doubles: 1 MB
        else kept.push(Buffer.alloc(1024 * 1024, i % 256));
      }
      return { allocated: mb, kind: query.kind === 'array' ? 'array' : 'buffer', chunks: kept.length };
    },
    { isolated: true },
  );

  // Fails with an error whose `cause` has a cause: the debug page shows the chain.
  routes.get('/demo/cause', async () => {
    try {
      await connect('db.internal', 5432);
    } catch (error) {
      throw new Error('The orders could not be loaded', { cause: error });
    }
  });

  // Fails with an AggregateError: the debug page lists its errors.
  routes.get('/demo/aggregate', async () => {
    const answers = await Promise.allSettled([priceFrom('primary'), priceFrom('fallback')]);
    const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason] : []));
    throw new AggregateError(failures, 'No price source answered');
  });

  // Throws a string, not an Error: the debug page points at this declaration.
  routes.get('/demo/throw-string', () => {
    throw 'a string, not an Error';
  });
});

/** A report section of the application's own: who the client said it was. */
export const collectors: Collector[] = [
  {
    name: 'client',
    collect: ({ request }) => ({ userAgent: request.headers['user-agent'] ?? null, languages: request.headers['accept-language'] ?? null }),
  },
];
