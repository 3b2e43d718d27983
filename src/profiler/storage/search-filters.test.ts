import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestHttpError } from '../../errors/http-errors.js';
import { parseSearchFilters, parseTime, type SearchInput } from './search-filters.js';

const NO_FILTER = {
  ip: undefined,
  method: undefined,
  statusCode: undefined,
  url: undefined,
  token: undefined,
  start: undefined,
  end: undefined,
  limit: 100,
  before: undefined,
  exception: undefined,
  fingerprint: undefined,
  route: undefined,
  minDuration: undefined,
  hideAssets: true,
};

// Epoch milliseconds, from `date -u -d <time> +%s`.
const JAN_2_2026 = 1_767_312_000_000;
const JAN_2_2026_END = 1_767_398_399_999;
const JAN_2_2026_1030 = 1_767_349_800_000;

/** The message of the 400 that `input` is refused with. */
function refusal(input: SearchInput, naming?: (field: string) => string): string {
  try {
    parseSearchFilters(input, naming);
  } catch (error) {
    assert.ok(error instanceof BadRequestHttpError, String(error));
    assert.deepEqual([error.status, error.code], [400, 'VIGIL_ERR_PROFILER_SEARCH']);
    return error.message;
  }
  assert.fail(`${JSON.stringify(input)} was accepted`);
}

describe("the filters are Symfony's fields; an empty or absent field is no filter", () => {
  it('gives no filter and the default limit of 100 for no input', () => {
    assert.deepEqual(parseSearchFilters({}), NO_FILTER);
  });
  it('treats empty and blank values, and absent ones, as no filter', () => {
    assert.deepEqual(
      parseSearchFilters({
        ip: '',
        method: '   ',
        status_code: '',
        url: '',
        token: '',
        start: '',
        end: '',
        limit: '',
        other: undefined,
      }),
      NO_FILTER,
    );
  });
  it('reads every field, trimmed, in the form the store compares', () => {
    const filters = parseSearchFilters({
      ip: ' FE80::1 ',
      method: 'get',
      status_code: '404',
      url: '/items?q=1',
      token: 'A1B2C3',
      start: '2026-01-02',
      end: '2026-01-02',
      limit: '25',
      before: '4097',
    });
    assert.deepEqual(filters, {
      ...NO_FILTER,
      ip: 'fe80::1',
      method: 'GET',
      statusCode: 404,
      url: '/items?q=1',
      token: 'a1b2c3',
      start: JAN_2_2026,
      end: JAN_2_2026_END,
      limit: 25,
      before: 4097,
    });
  });
  it('refuses a field it does not know, listing the ones it does', () => {
    assert.equal(
      refusal({ status: '404' }),
      'Unknown search filter "status"; the filters are ip, method, status_code, url, token, start, end, limit, before, exception, fingerprint, route, min_duration, assets.',
    );
  });
  it('refuses a position that a search page cannot have given', () => {
    for (const before of ['0', '-1', '1.5', 'abc', '1234567890123456']) {
      assert.equal(
        refusal({ before }),
        `Search filter "before" must be a position a search page gave (a whole number from 1); got "${before}".`,
      );
    }
  });
  it('refuses a field given more than once', () => {
    assert.equal(refusal({ method: ['GET', 'POST'] }), 'Search filter "method" is given more than once.');
  });
});

describe('ip is an IP address or part of one', () => {
  it('accepts a prefix of a v4 or v6 address', () => {
    assert.equal(parseSearchFilters({ ip: '192.168.' }).ip, '192.168.');
    assert.equal(parseSearchFilters({ ip: '::ffff:10.0' }).ip, '::ffff:10.0');
  });
  it('refuses anything else', () => {
    assert.equal(
      refusal({ ip: '10.0.0.1;drop' }),
      'Search filter "ip" must be an IP address or part of one; got "10.0.0.1;drop".',
    );
    assert.equal(
      refusal({ ip: 'localhost' }),
      'Search filter "ip" must be an IP address or part of one; got "localhost".',
    );
    assert.equal(
      refusal({ ip: '1'.repeat(46) }),
      `Search filter "ip" must be an IP address or part of one; got "${'1'.repeat(46)}".`,
    );
  });
});

describe('method is an HTTP method name', () => {
  it('upper-cases it', () => {
    assert.equal(parseSearchFilters({ method: 'Patch' }).method, 'PATCH');
  });
  it('refuses what is not letters, or longer than 20', () => {
    assert.equal(
      refusal({ method: 'GET POST' }),
      'Search filter "method" must be an HTTP method such as GET; got "GET POST".',
    );
    assert.equal(refusal({ method: 'G3T' }), 'Search filter "method" must be an HTTP method such as GET; got "G3T".');
    assert.equal(
      refusal({ method: 'A'.repeat(21) }),
      `Search filter "method" must be an HTTP method such as GET; got "${'A'.repeat(21)}".`,
    );
  });
});

describe('status_code is a status code from 100 to 599', () => {
  it('accepts the bounds', () => {
    assert.equal(parseSearchFilters({ status_code: '100' }).statusCode, 100);
    assert.equal(parseSearchFilters({ status_code: '599' }).statusCode, 599);
  });
  it('refuses codes outside them and what is not three digits', () => {
    for (const code of ['099', '600', '4xx', '40', '4040', '+404', '404.0']) {
      assert.equal(
        refusal({ status_code: code }),
        `Search filter "status_code" must be a status code from 100 to 599; got "${code}".`,
      );
    }
  });
});

describe('url is a part of the URL, at most 2048 characters', () => {
  it('accepts 2048 characters', () => {
    assert.equal(parseSearchFilters({ url: 'u'.repeat(2048) }).url?.length, 2048);
  });
  it('refuses more, quoting only the first 40', () => {
    assert.equal(
      refusal({ url: 'u'.repeat(2049) }),
      `Search filter "url" must be at most 2048 characters; got "${'u'.repeat(40)}...".`,
    );
  });
});

describe('token is a prefix of a token: 1 to 6 hexadecimal characters', () => {
  it('lower-cases it', () => {
    assert.equal(parseSearchFilters({ token: 'F' }).token, 'f');
  });
  it('refuses more than six characters or a non-hexadecimal one', () => {
    assert.equal(
      refusal({ token: 'abcdef0' }),
      'Search filter "token" must be 1 to 6 hexadecimal characters; got "abcdef0".',
    );
    assert.equal(
      refusal({ token: 'abcg' }),
      'Search filter "token" must be 1 to 6 hexadecimal characters; got "abcg".',
    );
  });
});

describe('limit is a whole number from 1 to 1000, default 100', () => {
  it('accepts the bounds', () => {
    assert.equal(parseSearchFilters({ limit: '1' }).limit, 1);
    assert.equal(parseSearchFilters({ limit: '1000' }).limit, 1000);
  });
  it('refuses what is outside them or not a whole number', () => {
    for (const limit of ['0', '1001', '10000', '-1', '1.5', '1e3', 'ten']) {
      assert.equal(refusal({ limit }), `Search filter "limit" must be a whole number from 1 to 1000; got "${limit}".`);
    }
  });
});

describe('start and end are epoch milliseconds or ISO 8601, UTC unless a zone is given', () => {
  it('takes epoch milliseconds as they are', () => {
    assert.deepEqual(parseTime('0', false), 0);
    assert.deepEqual(parseTime('1767312000000', true), JAN_2_2026);
  });
  it('reads a date as its midnight, UTC', () => {
    assert.equal(parseTime('2026-01-02', false), JAN_2_2026);
    assert.equal(parseTime('2024-02-29', false), 1_709_164_800_000);
  });
  it('reads a bare date as the end of that day when it ends a range', () => {
    assert.equal(parseTime('2026-01-02', true), JAN_2_2026_END);
    assert.equal(parseTime('2026-01-02T10:30', true), JAN_2_2026_1030);
  });
  it('reads a time with T or a space, with optional seconds and milliseconds', () => {
    assert.equal(parseTime('2026-01-02T10:30', false), JAN_2_2026_1030);
    assert.equal(parseTime('2026-01-02 10:30', false), JAN_2_2026_1030);
    assert.equal(parseTime('2026-01-02T10:30:15', false), 1_767_349_815_000);
    assert.equal(parseTime('2026-01-02T10:30:15.5', false), 1_767_349_815_500);
    assert.equal(parseTime('2026-01-02T10:30:15.123', false), 1_767_349_815_123);
  });
  it('applies a zone', () => {
    assert.equal(parseTime('2026-01-02T10:30Z', false), JAN_2_2026_1030);
    assert.equal(parseTime('2026-01-02t10:30z', false), JAN_2_2026_1030);
    assert.equal(parseTime('2026-01-02T10:30+02:00', false), 1_767_342_600_000);
    assert.equal(parseTime('2026-01-02T10:30-05:30', false), 1_767_369_600_000);
  });
  it('refuses dates and times that do not exist', () => {
    for (const value of [
      '2026-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-01-02T24:00',
      '2026-01-02T10:60',
      '2026-01-02T10:30:60',
      '2026-01-02T10:30+24:00',
      '2026-01-02T10:30+02:60',
    ]) {
      assert.equal(parseTime(value, false), undefined, value);
    }
  });
  it('refuses other forms', () => {
    for (const value of [
      'yesterday',
      '2026-1-2',
      '02/01/2026',
      '2026-01-02T10',
      '2026-01-02T10:30:15.1234',
      '1'.repeat(16),
      '-1',
      '2026-01-02T10:30+0200',
    ]) {
      assert.equal(parseTime(value, false), undefined, value);
    }
  });
  it('says what a time must be, naming the filter', () => {
    assert.equal(
      refusal({ end: 'yesterday' }),
      'Search filter "end" must be epoch milliseconds or an ISO 8601 date such as 2026-01-02 or 2026-01-02T10:30; got "yesterday".',
    );
  });
});

describe('start may not be after end', () => {
  it('accepts one whole day given as the same date twice', () => {
    const { start, end } = parseSearchFilters({ start: '2026-01-02', end: '2026-01-02' });
    assert.deepEqual([start, end], [JAN_2_2026, JAN_2_2026_END]);
  });
  it('refuses a start after the end, quoting both as given', () => {
    assert.equal(
      refusal({ start: '2026-01-03', end: '2026-01-02' }),
      'Search filter "start" (2026-01-03) is after Search filter "end" (2026-01-02).',
    );
    assert.equal(
      refusal({ start: '1000', end: '999' }),
      'Search filter "start" (1000) is after Search filter "end" (999).',
    );
  });
});

describe('messages name a filter the way the caller does', () => {
  it("uses the command line's option names when given them", () => {
    const option = (field: string) => `--${field.replace('_', '-')}`;
    assert.equal(
      refusal({ status_code: 'abc' }, option),
      '--status-code must be a status code from 100 to 599; got "abc".',
    );
    assert.equal(refusal({ start: '5', end: '4' }, option), '--start (5) is after --end (4).');
  });
});

describe("vigil's filters: the exception, its group, the route, a minimum duration, the browser's own requests", () => {
  it('reads the exception class, the fingerprint, the route and the minimum duration', () => {
    assert.deepEqual(
      parseSearchFilters({
        exception: 'TypeError',
        fingerprint: 'Ab-_0123456789xy',
        route: '/api/products/:id',
        min_duration: '250.5',
      }),
      {
        ...NO_FILTER,
        exception: 'TypeError',
        fingerprint: 'Ab-_0123456789xy',
        route: '/api/products/:id',
        minDuration: 250.5,
      },
    );
  });
  it('takes the method from a route given with it', () => {
    assert.deepEqual(parseSearchFilters({ route: 'post /cart' }), { ...NO_FILTER, method: 'POST', route: '/cart' });
    assert.deepEqual(parseSearchFilters({ route: 'GET /cart', method: 'get' }), {
      ...NO_FILTER,
      method: 'GET',
      route: '/cart',
    });
    assert.match(refusal({ route: 'GET /cart', method: 'POST' }), /a route of the method searched \(POST\)/);
  });
  it("hides the browser's own requests unless assets=show", () => {
    assert.equal(parseSearchFilters({ assets: 'show' }).hideAssets, false);
    assert.equal(parseSearchFilters({ assets: 'hide' }).hideAssets, true);
    assert.match(refusal({ assets: 'all' }), /"assets" must be "show" or "hide"/);
  });
  it('refuses what none of them can be', () => {
    assert.match(refusal({ exception: "x' OR 1" }), /"exception" must be the class of an exception/);
    assert.match(refusal({ fingerprint: 'abc' }), /"fingerprint" must be the fingerprint/);
    assert.match(refusal({ route: 'products' }), /"route" must be a route pattern/);
    assert.match(refusal({ min_duration: '-1' }), /"min_duration" must be a number of milliseconds/);
    assert.match(refusal({ min_duration: '1e9' }), /"min_duration"/);
  });
});
