import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPg } from './postgres-driver.js';
import { describePgError, isReportDataError, isUnavailable } from './postgres-errors.js';

// The driver as a store loads it before its first connection: its errors are the ones told apart.
const pg = await loadPg();

/** An error as the server sends it: a message and its SQLSTATE. */
const fromServer = (code: string, message = 'from the server') =>
  Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code });
/** A network error as Node raises it. */
const network = (code: string, syscall = 'connect') =>
  Object.assign(new Error(`${syscall} ${code} 10.0.0.5:5432`), { code, syscall, errno: -111 });

describe('a failure of the PostgreSQL store is told apart: unavailable, one report, or the store', () => {
  it('takes a server that cannot be reached or cannot serve now as unavailable', () => {
    for (const error of [
      network('ECONNREFUSED'),
      network('ETIMEDOUT'),
      network('ENOTFOUND', 'getaddrinfo'),
      network('ECONNRESET', 'read'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      fromServer('57P01', 'terminating connection due to administrator command'),
      fromServer('57P03', 'the database system is starting up'),
      fromServer('57014', 'canceling statement due to statement timeout'),
      fromServer('53300', 'sorry, too many clients already'),
      fromServer('53100', 'could not extend file: No space left on device'),
      fromServer('08006'),
      fromServer('40P01', 'deadlock detected'),
      fromServer('55P03'),
    ]) {
      assert.equal(isUnavailable(error), true, error.message);
      assert.equal(isReportDataError(error), false, error.message);
    }
  });

  it("takes a data exception or a limit as one report's fault", () => {
    for (const error of [
      fromServer('22021', 'invalid byte sequence for encoding "UTF8": 0x00'),
      fromServer('54000', 'total size of jsonb array elements exceeds the maximum'),
    ]) {
      assert.equal(isReportDataError(error), true);
      assert.equal(isUnavailable(error), false);
    }
  });

  it('takes anything else as a failure of the store: a bad password, a missing database or table, a bug', () => {
    for (const error of [
      fromServer('28P01', 'password authentication failed for user "vigil"'),
      fromServer('3D000', 'database "x" does not exist'),
      fromServer('42P01'),
      new TypeError('x is not a function'),
      'a string',
    ]) {
      assert.equal(isUnavailable(error), false, String(error));
      assert.equal(isReportDataError(error), false, String(error));
    }
  });

  it('names the SQLSTATE or the network code first, once', () => {
    assert.equal(
      describePgError(fromServer('57P01', 'terminating connection due to administrator command')),
      '57P01: terminating connection due to administrator command',
    );
    assert.equal(describePgError(network('ECONNREFUSED')), 'connect ECONNREFUSED 10.0.0.5:5432');
    assert.equal(describePgError(new Error('Query read timeout')), 'Query read timeout');
  });
});
