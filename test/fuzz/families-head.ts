/**
 * Malformed heads: request lines (methods, targets of every form and length, versions,
 * line endings, control characters) and header blocks (folding, duplicates, transfer
 * codings, sizes and counts, characters a header may not hold).
 */
import { marker, statusRule, type CaseSpec, type Family } from './cases.js';
import type { Random } from './prng.js';
import { requestBytes, utf8, type RequestParts } from './request.js';
import { pathWith } from './targets.js';

type Variant = (random: Random, id: number, port: number) => CaseSpec;

/** A family whose every call picks one of its variants. */
function family(name: string, variants: readonly Variant[]): Family {
  return { name, make: (random, id, context) => random.pick(variants)(random, id, context.port) };
}

const spec = (name: string, parts: RequestParts, extra: Partial<CaseSpec> = {}): CaseSpec => ({
  name,
  bytes: requestBytes(parts),
  ...extra,
});

const CONTROL = ['\x00', '\x01', '\x08', '\x0b', '\x0c', '\x1b', '\x7f', '\x80', '\xff', '\r', '\n', '\t'];
const show = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);

export const method = family('request line: method', [
  (random, id) =>
    spec('lower-case method', { method: random.pick(['get', 'post', 'Get']), target: pathWith(random, marker(id)) }),
  (random, id) => {
    const name = random.pick([
      'FOO',
      'BREW',
      'QUERY',
      'PURGE',
      'LINK',
      'M-SEARCH',
      'PROPFIND',
      'MKCOL',
      'SEARCH',
      'TRACE',
      'ACL',
      'REPORT',
    ]);
    return spec(`unrouted method ${name}`, { method: name, target: pathWith(random, marker(id)) });
  },
  (random, id) =>
    spec('CONNECT authority-form', {
      method: 'CONNECT',
      target: random.pick(['localhost:443', `${marker(id)}:443`, '127.0.0.1:22', '/hello']),
    }),
  (random, id) => {
    const name = random.pick([`G${marker(id)}T`, 'GE\x00T', utf8('GÉT'), 'GET\x7f', '"GET"', 'GET/1', '123', 'G:T']);
    return spec(`invalid method ${show(name)}`, { method: name, target: '/hello' });
  },
  (random) => {
    const length = random.pick([100, 5_000, 70_000]);
    return spec(`method of ${length} letters`, { method: 'A'.repeat(length), target: '/hello' });
  },
  () => ({ name: 'no method', bytes: ' /hello HTTP/1.1\r\nHost: localhost\r\n\r\n' }),
]);

export const targetLength = family('request line: long targets', [
  (random, id) => {
    const length = random.pick([8_192, 8_193, 16_384, 60_000, 66_000, 70_000]);
    const inPath = random.chance(0.5);
    const prefix = inPath ? '/nope/' : '/hello?q=';
    const mark = encodeURIComponent(marker(id));
    const target = `${prefix}${'a'.repeat(Math.max(0, length - prefix.length - mark.length))}${mark}`;
    return spec(
      `${target.length}-byte target in the ${inPath ? 'path' : 'query'}`,
      { target },
      { inspectReport: length < 64_000 },
    );
  },
  (random) => {
    const depth = random.pick([1_000, 3_000]);
    return spec(`${depth} path segments`, { target: '/a'.repeat(depth) });
  },
  (random) => {
    const count = random.pick([500, 2_000]);
    return spec(`${count} query parameters`, {
      target: `/hello?${Array.from({ length: count }, (_, i) => `k${i}=v`).join('&')}`,
    });
  },
]);

export const targetForm = family('request line: target forms', [
  (random, id, port) => {
    const target = random.pick([
      'http://localhost/hello',
      `https://localhost:${port}/items`,
      `http://evil.example/nope/${encodeURIComponent(marker(id))}`,
      'HTTPS://LOCALHOST/hello',
      'http://user:pass@localhost/hello',
      'ftp://localhost/hello',
      `http://${marker(id)}/hello`,
      'http://localhost',
      'https://[::1]/with-slash',
      'javascript:alert(1)',
    ]);
    return spec(`absolute-form ${show(target)}`, {
      method: random.pick(['GET', 'POST', 'HEAD']),
      target,
      headers: [['Content-Length', '0']],
    });
  },
  (random) => {
    const name = random.pick(['OPTIONS', 'GET', 'POST', 'DELETE', 'HEAD']);
    return spec(`asterisk-form with ${name}`, { method: name, target: random.pick(['*', '*?a=1', '**']) });
  },
  (random) =>
    spec('authority-form without CONNECT', {
      method: random.pick(['GET', 'OPTIONS']),
      target: random.pick(['localhost:443', 'localhost']),
    }),
  (random, id) => {
    const target = random.pick([
      '',
      'hello',
      '//evil.example/x',
      '/\\evil',
      '/./hello',
      '/../../etc/passwd',
      `/hello#${marker(id)}`,
      '?q=1',
      '/he llo',
      '/hello?',
      '/%',
      '/;a=b',
    ]);
    return spec(`odd origin-form ${show(target)}`, { target });
  },
]);

export const version = family('request line: versions', [
  (random) => {
    const text = random.pick([
      'HTTP/1.0',
      'HTTP/0.9',
      'HTTP/2.0',
      'HTTP/1.2',
      'HTTP/3',
      'http/1.1',
      'HTTP/01.1',
      'HTTP/1.1.1',
      'HTTX/1.1',
      'HTTP/1.1 junk',
      'HTTP/1',
      'HTTP/9.9',
      'HTTP/1.10',
    ]);
    return spec(`version ${show(text)}`, { target: '/hello', version: text });
  },
  (random) =>
    spec('HTTP/1.0 without Host', {
      target: random.pick(['/hello', '/nope', '/with-slash']),
      version: 'HTTP/1.0',
      host: false,
    }),
  () => ({ name: 'HTTP/0.9 simple request', bytes: 'GET /hello\r\n\r\n', halfClose: true }),
  () => spec('HTTP/1.1 without Host', { target: '/hello', host: false }),
]);

export const lineEndings = family('request line: line endings', [
  (random) => {
    const eol = random.pick(['\n', '\r', '\n\r', '\r\r\n']);
    return spec(`every line ends ${JSON.stringify(eol)}`, { target: '/hello', eol }, { halfClose: true });
  },
  (random) => {
    const bare = random.pick(['\n', '\r']);
    return {
      name: `request line ends ${JSON.stringify(bare)}, headers CRLF`,
      bytes: `GET /hello HTTP/1.1${bare}Host: localhost\r\n\r\n`,
      halfClose: true,
    };
  },
  (random) => {
    const lead = random.pick(['\r\n', '\r\n\r\n\r\n', '\n', ' ', '\t']);
    return {
      name: `${JSON.stringify(lead)} before the request line`,
      bytes: `${lead}GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    };
  },
  (random) => {
    const line = random.pick([
      'GET  /hello HTTP/1.1',
      'GET\t/hello\tHTTP/1.1',
      'GET /hello  HTTP/1.1',
      'GET /hello HTTP/1.1 ',
      ' GET /hello HTTP/1.1',
    ]);
    return { name: `request line ${show(line)}`, bytes: `${line}\r\nHost: localhost\r\n\r\n` };
  },
  () => ({ name: 'header block never ended', bytes: 'GET /hello HTTP/1.1\r\nHost: localhost\r\n', halfClose: true }),
]);

export const controlChars = family('request line: control characters', [
  (random, id) => {
    const char = random.pick(CONTROL);
    const where = random.pick(['method', 'target', 'version', 'header name', 'header value', 'query']);
    const parts: RequestParts = { target: '/hello' };
    if (where === 'method') parts.method = `GE${char}T`;
    if (where === 'target') parts.target = `/hel${char}lo/${marker(id)}`;
    if (where === 'query') parts.target = `/check?v=${char}${marker(id)}`;
    if (where === 'version') parts.version = `HTTP/1${char}.1`;
    if (where === 'header name') parts.headers = [[`X-A${char}b`, 'v']];
    if (where === 'header value') parts.headers = [['Referer', `http://a/${char}${marker(id)}`]];
    return spec(`${JSON.stringify(char)} in the ${where}`, parts, { halfClose: char === '\r' || char === '\n' });
  },
  (random, id) => {
    const bytes = random.pick(['\xc3\xa9', '\xff\xfe', '\xe2\x80\xae', '\xed\xa0\x80', '\xc0\xaf']);
    return spec(`raw bytes ${JSON.stringify(bytes)} in the target`, { target: `/nope/${bytes}${marker(id)}` });
  },
]);

export const obsFold = family('headers: obs-fold', [
  (random, id) => {
    const name = random.pick(['X-A', 'Host', 'Content-Length', 'Transfer-Encoding', 'Referer', 'Accept']);
    const fold = random.pick([' ', '\t', '  \t']);
    const value = name === 'Content-Length' ? '0' : name === 'Host' ? 'localhost' : `a${marker(id)}`;
    return {
      name: `${name} folded with ${JSON.stringify(fold)}`,
      bytes: `GET /nope HTTP/1.1\r\nHost: localhost\r\n${name}: ${value}\r\n${fold}continued\r\n\r\n`.replace(
        'Host: localhost\r\nHost:',
        'Host:',
      ),
    };
  },
  (random) => {
    const fold = random.pick([' ', '\t']);
    return {
      name: 'fold as the first header line',
      bytes: `GET /hello HTTP/1.1\r\n${fold}X-A: b\r\nHost: localhost\r\n\r\n`,
    };
  },
]);

const twoHosts = statusRule('item 7: two Host headers are a 400', [400]);
const clWithTe = statusRule('Content-Length with Transfer-Encoding is a 400', [400]);

export const duplicates = family('headers: duplicates', [
  (random, id) => {
    const second = random.pick(['localhost', 'LOCALHOST', 'evil.example', '', `${marker(id)}`, 'localhost:1']);
    return spec(
      `Host twice, then ${show(second)}`,
      {
        target: pathWith(random, marker(id)),
        headers: [
          ['Host', 'localhost'],
          ['Host', second],
        ],
      },
      { rules: [twoHosts] },
    );
  },
  (random) => {
    const [first, second] = random.pick([
      ['3', '3'],
      ['3', '4'],
      ['3', '0'],
      ['3,3', ''],
      ['3, 3', ''],
    ] as const);
    const headers: Array<[string, string]> = [
      ['Content-Type', 'text/plain'],
      ['Content-Length', first],
    ];
    if (second !== '') headers.push(['Content-Length', second]);
    return spec(`Content-Length ${show(first)}${second ? ` and ${show(second)}` : ''}`, {
      method: 'POST',
      target: '/echo',
      headers,
      body: 'abc',
    });
  },
  (random) => {
    const order = random.chance(0.5);
    const headers: Array<[string, string]> = order
      ? [
          ['Content-Length', '5'],
          ['Transfer-Encoding', 'chunked'],
        ]
      : [
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '5'],
        ];
    return spec(
      `Content-Length and Transfer-Encoding (${order ? 'CL first' : 'TE first'})`,
      { method: 'POST', target: '/echo', headers: [['Content-Type', 'text/plain'], ...headers], body: '0\r\n\r\n' },
      { rules: [clWithTe] },
    );
  },
  () =>
    spec('Transfer-Encoding: chunked twice', {
      method: 'POST',
      target: '/echo',
      headers: [
        ['Content-Type', 'text/plain'],
        ['Transfer-Encoding', 'chunked'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: '3\r\nabc\r\n0\r\n\r\n',
    }),
  (random, id) =>
    spec('absolute-form naming another host than Host', {
      target: `http://evil.example/nope/${encodeURIComponent(marker(id))}`,
      headers: [['Host', random.pick(['localhost', 'other.example'])]],
    }),
]);

export const transferEncoding = family('headers: transfer-encoding', [
  (random) => {
    const value = random.pick([
      'gzip',
      'chunked, gzip',
      'gzip, chunked',
      'xchunked',
      'chunked;x=1',
      'CHUNKED',
      ' chunked',
      'identity',
      'chunked\x0b',
      '',
      'chunked, identity',
      'deflate,chunked',
    ]);
    return spec(`Transfer-Encoding ${show(value)}`, {
      method: 'POST',
      target: '/echo',
      headers: [
        ['Content-Type', 'application/json'],
        ['Transfer-Encoding', value],
      ],
      body: '2\r\n{}\r\n0\r\n\r\n',
    });
  },
  (random) => {
    const value = random.pick(['chunked', 'gzip']);
    return spec(`Transfer-Encoding ${value} on a GET`, {
      method: 'GET',
      target: '/hello',
      headers: [['Transfer-Encoding', value]],
      body: '0\r\n\r\n',
    });
  },
]);

export const headerSize = family('headers: counts and sizes', [
  (random) => {
    const count = random.pick([100, 500, 2_000, 5_000]);
    return spec(
      `${count} headers`,
      { target: '/nope', headers: Array.from({ length: count }, (_, i) => [`X-H${i}`, 'v'] as const) },
      { inspectReport: true },
    );
  },
  (random, id) => {
    const size = random.pick([8_000, 17_000, 40_000, 70_000]);
    return spec(
      `one ${size}-byte header`,
      { target: '/nope', headers: [['X-Big', `${'b'.repeat(size)}${marker(id)}`]] },
      { inspectReport: size < 64_000 },
    );
  },
  (random) => {
    const size = random.pick([5_000, 20_000]);
    return spec(`a ${size}-byte header name`, { target: '/nope', headers: [[`X-${'n'.repeat(size)}`, 'v']] });
  },
  (random) => {
    const count = random.pick([200, 3_000]);
    return spec(`Cookie with ${count} pairs`, {
      target: '/hello',
      headers: [['Cookie', Array.from({ length: count }, (_, i) => `c${i}=v`).join('; ')]],
    });
  },
]);

export const headerChars = family('headers: characters', [
  (random) => {
    const name = random.pick([
      utf8('X-Café'),
      'X-\xe9',
      'X A',
      'X(A)',
      'X<A>',
      ':authority',
      '',
      'Host ',
      ' Host',
      'X-A\t',
      'X"A',
      'X{A}',
      'X@A',
    ]);
    return { name: `header name ${show(name)}`, bytes: `GET /hello HTTP/1.1\r\nHost: localhost\r\n${name}: v\r\n\r\n` };
  },
  (random, id) => {
    const value = random.pick([
      utf8(`café ${marker(id)}`),
      `caf\xe9 ${marker(id)}`,
      '\xff\xfe',
      `a\x00b${marker(id)}`,
      'a\x01b',
      'a\x7fb',
      ' '.repeat(3000) + marker(id),
      utf8('\u2028\u2029'),
      utf8('\ufeff'),
    ]);
    const name = random.pick(['X-A', 'User-Agent', 'Referer', 'Accept-Language', 'Accept', 'Origin']);
    return {
      name: `${name} value ${show(value)}`,
      bytes: `GET ${random.pick(['/nope', '/hello', '/check?v=1'])} HTTP/1.1\r\nHost: localhost\r\n${name}: ${value}\r\n\r\n`,
    };
  },
  () => ({
    name: 'a header line without a colon',
    bytes: 'GET /hello HTTP/1.1\r\nHost: localhost\r\nNoColonHere\r\n\r\n',
  }),
  () => ({ name: 'a header with no value', bytes: 'GET /hello HTTP/1.1\r\nHost: localhost\r\nX-Empty:\r\n\r\n' }),
]);

export const HEAD_FAMILIES: readonly Family[] = [
  method,
  targetLength,
  targetForm,
  version,
  lineEndings,
  controlChars,
  obsFold,
  duplicates,
  transferEncoding,
  headerSize,
  headerChars,
];
