/**
 * The demo application: `ROUTES=examples/demo-routes.ts npm start`.
 * Each route shows one part of the routes API; /slow, /spin and /hog show the limits, the
 * /demo/ routes what a debug page and a debug report hold (some fail on purpose), and
 * `collectors` adds a panel with a menu badge to every debug report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineCollector, defineRoutes, html, renderValue, type Collector } from '../src/routes-api.js';

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

  routes.on(['GET', 'POST'], '/items', ({ request }) =>
    request.method === 'POST' ? { created: true } : { items: [] },
  );

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
        if (query.kind === 'array')
          kept.push(new Array(128 * 1024).fill(i + 0.5)); // 8-byte doubles: 1 MB
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

  // Console and app-logger lines land in the report's logs panel, each with its logger.
  routes.get('/demo/console', ({ log, request }) => {
    console.log('console.log from the handler', { at: new Date().toISOString() });
    log.info('the request logger');
    request.server.log.warn('the app logger (app.log): no request id, kept all the same');
    console.error('console.error from the handler');
    return 'Logged four lines: open the Logs panel of this request.';
  });

  // A form with a password and a file: the report shows the fields (the password redacted),
  // the cookies set here (the session one redacted) and the file's name, type and size.
  routes.get('/demo/form', ({ reply }) => {
    reply
      .header('set-cookie', ['theme=dark; Path=/', 'session_id=demo-secret; Path=/; HttpOnly'])
      .type('text/html; charset=utf-8');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A form</title></head><body>
<form method="post" action="/demo/form" enctype="multipart/form-data">
<label>Name <input name="name" value="Ann"></label> <label>Password <input type="password" name="password" value="hunter2"></label>
<label>File <input type="file" name="attachment"></label> <button>Send</button></form></body></html>`;
  });
  routes.post('/demo/form', ({ body, files }) => ({
    received: body ?? null,
    files: files.map((file) => file.filename),
  }));

  // Nested spans: the performance panel draws them under the handler's stage.
  routes.get('/demo/spans', async ({ span }) => {
    const user = await span('load user', async () => {
      await sleep(12);
      return { name: 'Ann' };
    });
    const page = await span('render page', async () => {
      const rows = await span('query orders', async () => {
        await sleep(20);
        return [1, 2, 3];
      });
      return span('template', () => `${user.name} has ${rows.length} orders`);
    });
    span('cache write', () => undefined);
    return page;
  });
});

interface ClientSection {
  userAgent: string | null;
  languages: string | null;
}

/** `fr, en;q=0.5` → the tags with their quality, best first. */
function acceptedLanguages(header: string | null): Array<{ tag: string; quality: number }> {
  if (!header) return [];
  return header
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
      return { tag: tag.trim(), quality: q ? Number(q.slice(2)) : 1 };
    })
    .filter((language) => language.tag !== '' && Number.isFinite(language.quality))
    .sort((a, b) => b.quality - a.quality);
}

/**
 * A report section of the application's own, as one unit: what it collects, its panel
 * (title, a menu badge counting the accepted languages, its own renderer) and its text
 * for `vigil profiler:show`.
 */
export const collectors: Collector[] = [
  defineCollector<ClientSection>({
    name: 'client',
    collect: ({ request }) => ({
      userAgent: request.headers['user-agent'] ?? null,
      languages: request.headers['accept-language'] ?? null,
    }),
    panel: {
      title: 'Client',
      badge: (section) => ({
        value: acceptedLanguages(section.languages).length,
        status: section.userAgent ? 'ok' : 'warn',
      }),
      render: (section) =>
        html`${renderValue(section)}<h3>Accepted languages</h3>${renderValue(acceptedLanguages(section.languages))}`,
    },
    text: (section) => [
      `user agent ${section.userAgent ?? 'none'}`,
      `languages ${
        acceptedLanguages(section.languages)
          .map((language) => `${language.tag} (q=${language.quality})`)
          .join(', ') || 'any'
      }`,
    ],
  }),
];
