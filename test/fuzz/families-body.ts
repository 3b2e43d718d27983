/**
 * Hostile bodies: broken chunked framing, bodies cut short, bad and deeply nested JSON,
 * form bombs (bounded), and multipart bodies with traversal, CRLF and markup in names.
 */
import { injectedName, marker, statusRule, type CaseSpec, type Family } from './cases.js';
import type { Random } from './prng.js';
import { chunked, multipartBody, requestBytes, utf8 } from './request.js';

type Variant = (random: Random, id: number) => CaseSpec;

function family(name: string, variants: readonly Variant[]): Family {
  return { name, make: (random, id) => random.pick(variants)(random, id) };
}

const show = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);

function post(target: string, type: string | undefined, body: string, headers: Array<[string, string]> = []): string {
  return requestBytes({
    method: 'POST',
    target,
    headers: [...(type === undefined ? [] : [['Content-Type', type] as [string, string]]), ...headers],
    body,
  });
}

export const chunkedBodies = family('bodies: chunked framing', [
  (random, id) => {
    const body = random.pick([
      '-1\r\nabc\r\n0\r\n\r\n',
      '0x3\r\nabc\r\n0\r\n\r\n',
      'ffffffffffffffffff\r\nabc\r\n0\r\n\r\n',
      '3 3\r\nabc\r\n0\r\n\r\n',
      '\r\nabc\r\n0\r\n\r\n',
      'g\r\nabc\r\n0\r\n\r\n',
      `3;ext=${marker(id)}\r\nabc\r\n0\r\n\r\n`,
      `3;${'x'.repeat(20_000)}\r\nabc\r\n0\r\n\r\n`,
      '5\r\nabc\r\n0\r\n\r\n',
      '2\r\nabc\r\n0\r\n\r\n',
      '3\r\nabc0\r\n\r\n',
      '3\nabc\n0\n\n',
    ]);
    return {
      name: `chunks ${show(body)}`,
      bytes: requestBytes({
        method: 'POST',
        target: random.pick(['/echo', '/nope', '/isolated-echo']),
        headers: [
          ['Content-Type', 'text/plain'],
          ['Transfer-Encoding', 'chunked'],
        ],
        body,
      }),
    };
  },
  (random, id) => {
    const trailer = random.pick([
      `${injectedName(id)}: 1`,
      'Content-Length: 5',
      `X-Trailer: ${marker(id)}`,
      'Transfer-Encoding: chunked',
    ]);
    return {
      name: `trailer ${show(trailer)}`,
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [
          ['Content-Type', 'text/plain'],
          ['Transfer-Encoding', 'chunked'],
        ],
        body: `3\r\nabc\r\n0\r\n${trailer}\r\n\r\n`,
      }),
    };
  },
  (random) => {
    const count = random.pick([1_000, 10_000]);
    return {
      name: `${count} one-byte chunks`,
      bytes: requestBytes({
        method: 'POST',
        target: '/echo',
        headers: [
          ['Content-Type', 'text/plain'],
          ['Transfer-Encoding', 'chunked'],
        ],
        body: chunked(Array.from({ length: count }, () => 'a')),
      }),
    };
  },
]);

export const cutShort = family('bodies: cut short', [
  (random) => {
    const target = random.pick(['/echo', '/isolated-echo', '/upload', '/nope']);
    return {
      name: `Content-Length 1000 with 10 bytes sent to ${target}, then end of stream`,
      bytes: requestBytes({
        method: 'POST',
        target,
        headers: [
          ['Content-Type', 'application/json'],
          ['Content-Length', '1000'],
        ],
        body: '{"a":"bcd"',
      }),
      halfClose: true,
    };
  },
  () => ({
    name: 'multipart cut inside a file, then end of stream',
    bytes: requestBytes({
      method: 'POST',
      target: '/upload',
      headers: [
        ['Content-Type', 'multipart/form-data; boundary=vgl'],
        ['Content-Length', '5000'],
      ],
      body: '--vgl\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\npartial',
    }),
    halfClose: true,
  }),
  () => ({
    name: 'chunked body cut inside a chunk, then end of stream',
    bytes: requestBytes({
      method: 'POST',
      target: '/echo',
      headers: [
        ['Content-Type', 'text/plain'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: '10\r\nabc',
    }),
    halfClose: true,
  }),
  (random, id) => ({
    name: 'body longer than Content-Length, the rest not a request',
    bytes: `${requestBytes({
      method: 'POST',
      target: random.pick(['/echo', '/hello']),
      headers: [
        ['Content-Type', 'text/plain'],
        ['Content-Length', '3'],
      ],
      body: 'abc',
    })}${marker(id)} junk\r\n\r\n`,
    methods: ['POST', 'JUNK'],
    untilClose: true,
    rules: [
      statusRule('item 7: the complete request keeps its answer', [200, 405], 0),
      statusRule('the bytes after it get a 400 or the close', [400], 1, true),
    ],
  }),
]);

const deep = (open: string, close: string, depth: number) => open.repeat(depth) + close.repeat(depth);

export const json = family('bodies: JSON', [
  (random, id) => {
    const body = random.pick([
      '{',
      '{"a":}',
      '[1,]',
      'NaN',
      "'x'",
      '\x00',
      '\ufeff{}',
      '{"a":1}{"b":2}',
      '',
      'nul',
      '{"a":"\\ud800"}',
      `{"${marker(id)}":"${marker(id)}"}`,
      '1e99999',
      '-',
      '{"a":1,"a":2}',
      '"\\u0000"',
    ]);
    return {
      name: `JSON ${show(body)}`,
      bytes: post(random.pick(['/echo', '/isolated-echo', '/items']), 'application/json', utf8(body)),
    };
  },
  (random) => {
    const depth = random.pick([1_000, 10_000, 100_000]);
    const [open, close] = random.pick([
      ['[', ']'],
      ['{"a":', '}'],
    ] as const);
    const target = random.pick(['/echo', '/isolated-echo']);
    return {
      name: `JSON nested ${depth} deep (${open}) to ${target}`,
      bytes: post(target, 'application/json', deep(open, close, depth)),
    };
  },
  (random) => {
    const body = random.pick([
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '[{"__proto__":null}]',
    ]);
    return {
      name: `JSON ${show(body)}`,
      bytes: post(random.pick(['/echo', '/isolated-echo']), 'application/json', body),
    };
  },
  (random) => {
    const type = random.pick([
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'text/json',
      'application/vnd.api+json',
      'APPLICATION/JSON',
      'application/json;;;',
      'application/json, text/html',
    ]);
    return { name: `JSON as ${show(type)}`, bytes: post('/echo', type, '{"a":1}') };
  },
  (random) => {
    const kind = random.pick(['string', 'keys']);
    const body =
      kind === 'string'
        ? `{"a":"${'x'.repeat(1_000_000)}"}`
        : `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
    return {
      name: `JSON with ${kind === 'string' ? 'a 1 MB string' : '50,000 keys'}`,
      bytes: post(random.pick(['/echo', '/isolated-echo']), 'application/json', body),
    };
  },
]);

export const form = family('bodies: forms', [
  (random) => {
    const unit = random.pick(['a=&', '&', '=', 'a[]=1&', 'a&', '%zz=%&']);
    const times = random.pick([100, 1_000, 5_000, 10_000]);
    return {
      name: `form ${JSON.stringify(unit)} x ${times}`,
      bytes: post(random.pick(['/echo', '/isolated-echo']), 'application/x-www-form-urlencoded', unit.repeat(times)),
    };
  },
  (random) => {
    const count = random.pick([1_000, 20_000]);
    return {
      name: `form with ${count} distinct keys`,
      bytes: post(
        '/echo',
        'application/x-www-form-urlencoded',
        Array.from({ length: count }, (_, i) => `k${i}=v`).join('&'),
      ),
    };
  },
  (random, id) => {
    const body = random.pick([
      '__proto__=x&constructor=y',
      'constructor[prototype][polluted]=1',
      `${encodeURIComponent(marker(id))}=${marker(id)}`,
      'a=%E2%80%A8',
      'a=%00',
      'a=%C0%AE',
      `a=${'v'.repeat(200_000)}`,
    ]);
    return {
      name: `form ${show(body)}`,
      bytes: post(
        random.pick(['/echo', '/isolated-echo']),
        random.pick(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-7']),
        body,
      ),
    };
  },
]);

const TRAVERSALS = [
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/etc/passwd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '....//....//etc/passwd',
  'C:\\boot.ini',
  'a\x00.txt',
  utf8('\u202etxt.exe'),
  '',
  '.',
  '..',
];

export const multipart = family('bodies: multipart', [
  (random, id) => {
    const filename = random.pick([...TRAVERSALS, `${marker(id)}.txt`, 'n'.repeat(10_000)]);
    return {
      name: `file named ${show(filename)}`,
      bytes: post(
        random.pick(['/upload', '/isolated-echo']),
        'multipart/form-data; boundary=vgl',
        multipartBody('vgl', [
          { disposition: `form-data; name="f"; filename="${filename}"`, type: 'text/plain', content: 'x' },
        ]),
      ),
    };
  },
  (random, id) => {
    const where = random.pick(['filename', 'name']);
    const value = `a\r\n${injectedName(id)}: 1`;
    const disposition =
      where === 'filename' ? `form-data; name="f"; filename="${value}"` : `form-data; name="${value}"`;
    return {
      name: `CRLF and a header in the part's ${where}`,
      bytes: post(
        '/upload',
        'multipart/form-data; boundary=vgl',
        multipartBody('vgl', [{ disposition, content: 'x' }]),
      ),
    };
  },
  (random, id) => {
    const name = random.pick([
      marker(id),
      '../../x',
      '',
      'a"b',
      '__proto__',
      'constructor',
      utf8('名前'),
      `${'k'.repeat(5_000)}`,
    ]);
    return {
      name: `field named ${show(name)}`,
      bytes: post(
        '/upload',
        'multipart/form-data; boundary=vgl',
        multipartBody('vgl', [{ disposition: `form-data; name="${name}"`, content: marker(id) }]),
      ),
    };
  },
  (random) => {
    const count = random.pick([999, 1_001, 3_000]);
    return {
      name: `${count} parts`,
      bytes: post(
        '/upload',
        'multipart/form-data; boundary=vgl',
        multipartBody(
          'vgl',
          Array.from({ length: count }, (_, i) => ({ disposition: `form-data; name="k${i}"`, content: 'v' })),
        ),
      ),
    };
  },
  (random) => {
    const [type, body] = random.pick([
      ['multipart/form-data', '--vgl\r\n\r\n'],
      [
        'multipart/form-data; boundary=other',
        multipartBody('vgl', [{ disposition: 'form-data; name="a"', content: '1' }]),
      ],
      [
        `multipart/form-data; boundary=${'b'.repeat(200)}`,
        multipartBody('b'.repeat(200), [{ disposition: 'form-data; name="a"', content: '1' }]),
      ],
      [
        'multipart/form-data; boundary=vgl',
        multipartBody('vgl', [{ disposition: 'form-data; name="a"', content: '1' }], false),
      ],
      ['multipart/form-data; boundary=vgl', ''],
      [
        'multipart/form-data; boundary=vgl',
        `preamble\r\n${multipartBody('vgl', [{ disposition: 'form-data; name="a"', content: '1' }])}epilogue`,
      ],
      ['multipart/form-data; boundary=vgl', '--vgl\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n--vgl--\r\n'],
      [
        'multipart/form-data; boundary=vgl',
        `--vgl\r\nContent-Disposition: form-data; name="f"; filename*=UTF-8''%E2%80%AE.txt\r\n\r\nx\r\n--vgl--\r\n`,
      ],
      [
        'multipart/form-data; boundary=vgl',
        `--vgl\r\nContent-Disposition: form-data; name="f"\r\nContent-Type: ${'t'.repeat(10_000)}\r\n\r\nx\r\n--vgl--\r\n`,
      ],
      ['multipart/mixed; boundary=vgl', multipartBody('vgl', [{ disposition: 'form-data; name="a"', content: '1' }])],
    ] as const);
    return {
      name: `multipart ${show(type)} with ${show(body)}`,
      bytes: post(random.pick(['/upload', '/isolated-echo']), type, body),
    };
  },
]);

export const BODY_FAMILIES: readonly Family[] = [chunkedBodies, cutShort, json, form, multipart];
