/**
 * Requests that aim at what the kernel writes back: percent-encoding tricks, Accept
 * headers with hundreds of ranges, forwarded headers with markup and CRLF, markup in
 * every reflected field, CRLF meant to become a header, the profiler's concealment, and
 * ordinary routes with odd but legal requests.
 */
import {
  injectedName,
  LINKS_KEEP_SCHEME,
  marker,
  NO_CORS,
  REFUSED_LIKE_ANYONE,
  type CaseSpec,
  type Family,
} from './cases.js';
import { OUTSIDER } from './issue-cases.js';
import type { Random } from './prng.js';
import { requestBytes, utf8, type RequestParts } from './request.js';
import { ACCEPTS, METHODS, pathWith } from './targets.js';

type Variant = (random: Random, id: number, port: number) => CaseSpec;

function family(name: string, variants: readonly Variant[]): Family {
  return { name, make: (random, id, context) => random.pick(variants)(random, id, context.port) };
}

const spec = (name: string, parts: RequestParts, extra: Partial<CaseSpec> = {}): CaseSpec => ({
  name,
  bytes: requestBytes(parts),
  ...extra,
});
const show = (text: string) => JSON.stringify(text.length > 48 ? `${text.slice(0, 48)}...` : text);

/** Ways markup may try to leave its context: an element, an attribute, a comment, CDATA. */
function payload(random: Random, id: number): string {
  const mark = marker(id);
  return random.pick([
    mark,
    `"'>${mark}`,
    `</title>${mark}`,
    `]]>${mark}`,
    `<!--${mark}-->`,
    `javascript:${mark}`,
    `{{${mark}}}`,
    `\\u003c${mark}`,
  ]);
}

/** 5xx a request to `target` is designed to get (the routes made to fail). */
function designedFailures(target: string): number[] {
  const path = target.split('?')[0];
  if (path === '/fail') return [500];
  const value = /[?&]v=([^&]*)/.exec(target)?.[1];
  if ((path === '/echo-header' || path === '/isolated-header') && value !== undefined) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return [];
    }
    // Node refuses a header value with a character outside these.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(decoded)) return [500];
  }
  return [];
}

export const percent = family('percent-encoding', [
  (random, id) => {
    const target = random.pick([
      '/%C0%AE%C0%AE/',
      '/%E0%80%AE',
      '/%F0%80%80%AE',
      '/items/%00',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/%2E%2e/hello',
      '/hello%2f..%2F',
      '/%zz',
      '/%',
      '/%1',
      '/%C3',
      '/%ED%A0%80',
      '/%FF',
      '/%u002e',
      '/%252e%252e/',
      '/with-slash%2F',
      '/%68%65%6c%6c%6f',
      '/hello%00',
      '/_profiler%2Fsearch',
      `/nope/${encodeURIComponent(marker(id))}`,
      `/nope/${encodeURIComponent(marker(id)).toLowerCase()}`,
    ]);
    return spec(`path ${show(target)}`, {
      method: random.pick(['GET', 'PUT', 'DELETE', 'HEAD']),
      target,
      headers: [
        ['Accept', random.pick(ACCEPTS)],
        ['Content-Length', '0'],
      ],
    });
  },
  (random, id) => {
    const value = random.pick([
      '%zz',
      '%C0%AE',
      '%00',
      '%2e%2e%2f',
      '%E2%80%A8',
      '%ED%A0%80',
      '%',
      `%3C${marker(id).slice(1, -1)}%3E`,
      `%3c${marker(id).slice(1, -1)}%3e`,
      '%25%33%43',
    ]);
    const target = random.pick(['/check', '/check-here', '/nope', '/with-slash', '/_profiler/search']);
    return spec(`query ${show(value)} on ${target}`, {
      target: `${target}?v=${value}&url=${value}`,
      headers: [['Accept', random.pick(ACCEPTS)]],
    });
  },
  (random) => {
    const id = random.pick(['%31', '%2D1', '12345678901234567890', '1%00', '%EF%BC%91', '1e3']);
    return spec(`PUT /items/${id}`, { method: 'PUT', target: `/items/${id}`, headers: [['Content-Length', '0']] });
  },
]);

export const accept = family('accept headers', [
  (random) => {
    const count = random.pick([100, 300, 900]);
    const ranges = Array.from({ length: count }, (_, i) => `type${i}/sub${i};q=0.${i % 10}`);
    if (random.chance(0.5)) ranges.splice(random.int(0, count), 0, 'application/json;q=0.95');
    return spec(
      `Accept with ${count} q-values`,
      {
        target: random.pick(['/nope', '/check?v=1', '/with-slash', '/_profiler/search']),
        headers: [['Accept', ranges.join(', ')]],
      },
      { inspectReport: true },
    );
  },
  (random, id) => {
    const value = random.pick([
      'text/html;q=abc, application/json;q=1e309',
      '*/*;q=-1',
      'application/json;q=0.0000001',
      ';;;,,,',
      '*/html',
      'text/*;q=0.5, application/*',
      'application/json;q=1;q=0',
      `text/html;${Array.from({ length: 1_000 }, (_, i) => `p${i}=v`).join(';')}`,
      `text/html, ${marker(id)}/x`,
      '',
      ',',
      'application/problem+xml;q=0.9, text/plain;q=0.91',
    ]);
    const target = random.pick(['/nope', '/check?v=1', '/fail', '/_profiler/zzzzzz']);
    return spec(
      `Accept ${show(value)} on ${target}`,
      { target, headers: [['Accept', value]] },
      { serverErrors: designedFailures(target) },
    );
  },
]);

export const forwarded = family('forwarded headers', [
  (random, id) => {
    const value = random.pick([
      `http://x/"><${marker(id).slice(1)}`,
      `javascript:alert(1)${marker(id)}`,
      `http://x/%0d%0a${injectedName(id)}:1`,
      `http://x/${'r'.repeat(4_000)}${marker(id)}`,
      utf8(`http://x/ü${marker(id)}`),
    ]);
    return spec(`Referer ${show(value)}`, {
      target: random.pick(['/nope', '/with-slash', '/check?v=1', '/items/x']),
      headers: [['Referer', value]],
    });
  },
  (random, id) => {
    const value = random.pick([
      marker(id),
      `1.2.3.4, ${marker(id)}`,
      Array.from({ length: 1_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(', '),
      'unknown',
      '::ffff:127.0.0.1',
      '127.0.0.1',
      `%0d%0a${injectedName(id)}:1`,
      '',
      '999.999.999.999',
    ]);
    return spec(`X-Forwarded-For ${show(value)}`, {
      target: random.pick(['/nope', '/_profiler', '/hello']),
      headers: [['X-Forwarded-For', value]],
    });
  },
  (random, id) => {
    const value = random.pick([
      `${marker(id)}.example`,
      'localhost:99999',
      'localhost/b',
      `localhost%0d%0a${injectedName(id)}:1`,
      'localhost, evil.example',
      '[::1]',
      `localhost:1/${marker(id)}`,
      '',
      'LOCALHOST:8443',
    ]);
    return spec(
      `X-Forwarded-Host ${show(value)}`,
      { target: random.pick(['/nope', '/with-slash', '/check?v=1']), headers: [['X-Forwarded-Host', value]] },
      { rules: [LINKS_KEEP_SCHEME] },
    );
  },
  (random, id) => {
    const value = random.pick([
      'javascript',
      'data',
      'https:evil',
      'HTTPS',
      'https,http',
      marker(id),
      '',
      'http',
      'ftp',
    ]);
    return spec(
      `X-Forwarded-Proto ${show(value)}`,
      { target: random.pick(['/nope', '/with-slash', '/with-slash?x=1']), headers: [['X-Forwarded-Proto', value]] },
      { rules: [LINKS_KEEP_SCHEME] },
    );
  },
  (random, id) => {
    const [name, value] = random.pick([
      ['X-Forwarded-Port', '99999'],
      ['X-Forwarded-Port', marker(id)],
      ['X-Forwarded-Prefix', `/${marker(id)}`],
      ['X-Forwarded-Prefix', '//evil.example'],
      ['Forwarded', `for="${marker(id)}";proto=javascript;host=evil.example`],
      ['X-Original-URL', '/_profiler'],
      ['X-Rewrite-URL', '/_profiler/search'],
      ['X-Real-IP', marker(id)],
    ] as const);
    return spec(
      `${name} ${show(value)}`,
      {
        target: random.pick(['/nope', '/with-slash', '/hello']),
        headers: [
          [name, value],
          ['X-Forwarded-For', OUTSIDER],
        ],
      },
      { rules: [LINKS_KEEP_SCHEME] },
    );
  },
]);

export const markup = family('markup in reflected fields', [
  (random, id) => {
    const text = payload(random, id);
    const where = random.pick([
      'path',
      'query name',
      'query value',
      'raw query',
      'Referer',
      'User-Agent',
      'Accept-Language',
      'Cookie',
      'Host',
      'X-Forwarded-Host',
      'Content-Type',
      'Origin',
    ]);
    const target = random.pick(['/nope', '/check', '/check-here', '/items', '/with-slash', '/echo']);
    const parts: RequestParts = {
      method: target === '/echo' ? 'POST' : 'GET',
      target: `${target}?v=1`,
      headers: [['Accept', random.pick(ACCEPTS)]],
    };
    const headers = parts.headers as Array<[string, string]>;
    if (where === 'path') parts.target = `${target}/${random.chance(0.5) ? text : encodeURIComponent(text)}`;
    if (where === 'query name') parts.target = `${target}?${encodeURIComponent(text)}=1`;
    if (where === 'query value') parts.target = `${target}?v=${encodeURIComponent(text)}`;
    // As sent, unencoded: a redirect copies the query into its Location.
    if (where === 'raw query') parts.target = `${target}?v=${text.replace(/\s/g, '')}`;
    if (where === 'Host') parts.host = text;
    if (
      ['Referer', 'User-Agent', 'Accept-Language', 'Cookie', 'X-Forwarded-Host', 'Content-Type', 'Origin'].includes(
        where,
      )
    )
      headers.push([where, text]);
    if (parts.method === 'POST') parts.body = 'a=1';
    return spec(`${show(text)} in the ${where} of ${target}`, parts);
  },
  (random, id) => {
    // A redirect copies the query, as sent, into its Location and its page.
    const text = payload(random, id).replace(/\s/g, '');
    const raw = random.chance(0.5);
    return spec(`redirect with ${show(text)} ${raw ? 'raw' : 'encoded'} in the query`, {
      target: `/with-slash?q=${raw ? text : encodeURIComponent(text)}`,
      headers: [['Accept', random.pick(ACCEPTS)]],
    });
  },
  (random, id) => {
    const text = encodeURIComponent(payload(random, id));
    const target = random.pick([
      `/_profiler/search?url=${text}`,
      `/_profiler/search?ip=${text}`,
      `/_profiler/search?method=${text}`,
      `/_profiler/search?status_code=${text}`,
      `/_profiler/search?token=${text}`,
      `/_profiler/search?limit=${text}`,
      `/_profiler/search?${text}=1`,
      `/_profiler/${text}`,
      `/_profiler?panel=${text}`,
    ]);
    return spec(`profiler page ${show(target)}`, {
      target,
      headers: [['Accept', random.pick(['text/html', 'application/json', '*/*'])]],
    });
  },
  (random, id) => {
    const text = payload(random, id);
    const [name, value] = random.pick([
      ['Access-Control-Request-Headers', `x-${text}`],
      ['Access-Control-Request-Method', text],
    ] as const);
    return spec(`preflight with ${name} ${show(value)}`, {
      method: 'OPTIONS',
      target: random.pick(['/hello', '/nope', '/items']),
      headers: [
        ['Origin', 'http://localhost:3000'],
        ['Access-Control-Request-Method', 'PUT'],
        [name, value],
      ].filter(([header], index, all) => all.findIndex(([other]) => other === header) === index) as Array<
        [string, string]
      >,
    });
  },
]);

export const crlf = family('CRLF injection', [
  (random, id) => {
    const newline = random.pick(['%0d%0a', '%0D%0A', '%0a', '%0d', '%C4%8D%C4%8A', '%E5%98%8A%E5%98%8D', '\\r\\n']);
    const inject = `${newline}${injectedName(id)}:%201`;
    const target = random.pick([
      `/nope/${inject}`,
      `/with-slash?q=${inject}`,
      `/with-slash/${inject}`,
      `/check?v=${inject}`,
      `/echo-header?v=${inject}`,
      `/isolated-header?v=${inject}`,
      `/_profiler/search?url=${inject}`,
    ]);
    return spec(`${newline} in ${target.split(/[/?]/)[1]}`, { target }, { serverErrors: designedFailures(target) });
  },
  (random, id) => {
    const [name, value] = random.pick([
      ['Referer', `http://x/%0d%0a${injectedName(id)}:1`],
      ['X-Forwarded-Host', `localhost%0d%0a${injectedName(id)}:1`],
      ['Origin', `http://localhost:3000%0d%0a${injectedName(id)}:1`],
    ] as const);
    return spec(`encoded CRLF in ${name}`, { target: random.pick(['/nope', '/with-slash']), headers: [[name, value]] });
  },
  (random, id) => {
    const inside = random.pick(['\r', '\n', '\r\r\n']);
    return {
      name: `raw ${JSON.stringify(inside)} inside a header value`,
      bytes: `GET /nope HTTP/1.1\r\nHost: localhost\r\nX-A: a${inside}${injectedName(id)}: 1\r\n\r\n`,
      halfClose: true,
    };
  },
]);

const REFUSED_TARGETS = [
  '/_profiler',
  '/_profiler/',
  '/_profiler/search',
  '/_profiler/search/',
  '/_profiler/zzzzzz',
  '/%5Fprofiler/search',
  '/_profiler?panel=x',
  '/_profiler/search?limit=1',
];

export const profiler = family('profiler access', [
  (random, _id, port) => {
    const method = random.pick(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
    const path = random.pick(REFUSED_TARGETS);
    const target = random.pick([
      path,
      `https://127.0.0.1:${port}${path}`,
      `http://evil.example${path}`,
      `https://localhost${path}`,
    ]);
    return spec(
      `${method} ${target} from ${OUTSIDER}`,
      {
        method,
        target,
        headers: [
          ['X-Forwarded-For', OUTSIDER],
          ['Content-Length', '0'],
        ],
      },
      {
        rules: [...REFUSED_LIKE_ANYONE],
      },
    );
  },
  (random, id) => {
    const target = random.pick([...REFUSED_TARGETS, `/_profiler/${encodeURIComponent(marker(id))}`]);
    return spec(
      `admitted ${target} with an Origin`,
      {
        target,
        headers: [
          ['Origin', random.pick(['http://localhost:3000', 'https://127.0.0.1', 'null'])],
          ['Accept', random.pick(['application/json', 'text/html'])],
        ],
      },
      {
        rules: [NO_CORS],
      },
    );
  },
]);

export const routes = family('routes with odd requests', [
  (random, id) => {
    const target = pathWith(random, marker(id));
    const method = random.pick(METHODS);
    return spec(
      `${method} ${show(target)}`,
      {
        method,
        target,
        headers: [
          ['Accept', random.pick(ACCEPTS)],
          ['Content-Length', '0'],
        ],
      },
      { serverErrors: designedFailures(target) },
    );
  },
  (random) => {
    const value = random.pick([
      'ok',
      '%E2%80%A8',
      '%00',
      '%7F',
      utf8('é'),
      '%C3%A9',
      '%FF',
      `${'v'.repeat(9_000)}`,
      '%09tab',
      '%01',
    ]);
    const path = random.pick(['/echo-header', '/isolated-header']);
    const target = `${path}?v=${value}`;
    return spec(
      `${path} with ${show(value)}`,
      { method: random.pick(['GET', 'HEAD']), target, headers: [['Accept', random.pick(ACCEPTS)]] },
      { serverErrors: designedFailures(target) },
    );
  },
  (random) =>
    spec(
      '/fail',
      { method: random.pick(['GET', 'HEAD']), target: '/fail', headers: [['Accept', random.pick(ACCEPTS)]] },
      { serverErrors: [500] },
    ),
  (random, id) => {
    const value = random.pick(['100-continue', marker(id), '100-continue, x', 'x=1', '']);
    return spec(`Expect ${show(value)}`, {
      method: 'POST',
      target: random.pick(['/echo', '/nope', '/hello']),
      headers: [
        ['Content-Type', 'text/plain'],
        ['Expect', value],
      ],
      body: 'abc',
    });
  },
  (random, id) => {
    const value = random.pick(['websocket', 'h2c', marker(id), 'HTTP/2.0', 'TLS/1.2']);
    return spec(`Upgrade ${show(value)}`, {
      target: random.pick(['/hello', '/nope', '/_profiler']),
      headers: [
        ['Connection', 'Upgrade'],
        ['Upgrade', value],
      ],
    });
  },
  (random, id) => {
    const value = random.pick([
      'close',
      'keep-alive, Content-Length',
      'Host',
      marker(id),
      'x-debug-token',
      'upgrade, close',
      'TE',
    ]);
    return spec(`Connection ${show(value)}`, {
      method: 'POST',
      target: random.pick(['/echo', '/nope']),
      headers: [
        ['Content-Type', 'text/plain'],
        ['Connection', value],
      ],
      body: 'abc',
    });
  },
]);

export const REFLECT_FAMILIES: readonly Family[] = [percent, accept, forwarded, markup, crlf, profiler, routes];
