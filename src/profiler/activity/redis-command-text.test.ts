import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ioredisCommandText,
  MAX_SHOWN_ARGUMENTS,
  nodeRedisCommandText,
  redisCommandText,
} from './redis-command-text.js';

describe('a Redis command is kept as its name and a ? per argument, never an argument', () => {
  it("reads ioredis's context, whose args follow the name", () => {
    // lib/Redis.ts `_buildCommandContext`: the name as called, the args after it, some kept by ioredis.
    const context = { command: 'hset', args: ['user:42', 'email', '?'], database: 0, serverAddress: 'localhost' };
    assert.equal(ioredisCommandText(context), 'HSET ? ? ?');
    assert.equal(ioredisCommandText({ command: 'get', args: ['session:secret-key'] }), 'GET ?');
    assert.equal(ioredisCommandText({ command: 'ping', args: [] }), 'PING');
  });

  it("reads node-redis's context, whose args start with the name", () => {
    // packages/client/lib/client/index.ts `#commandTraceContext`: the name upper-cased, then sanitizeArgs(args).
    const context = { command: 'SET', args: ['SET', 'cart:7', '?'], database: 0, clientId: 'c1' };
    assert.equal(nodeRedisCommandText(context), 'SET ? ?');
    assert.equal(nodeRedisCommandText({ command: 'JSON.GET', args: ['JSON.GET', 'doc:1', '$.a'] }), 'JSON.GET ? ?');
  });

  it('keeps no name that is not one, and bounds the ?s of a long command', () => {
    assert.equal(redisCommandText('GET secret-value with spaces', 1), '? ?');
    assert.equal(redisCommandText('x'.repeat(65), 0), '?');
    assert.equal(redisCommandText(42, 1), undefined);
    assert.equal(ioredisCommandText({ command: 'get', args: 'not an array' }), 'GET');
    assert.equal(nodeRedisCommandText({ command: 'PING', args: [] }), 'PING');
    assert.equal(redisCommandText('mget', MAX_SHOWN_ARGUMENTS + 84), `MGET${' ?'.repeat(MAX_SHOWN_ARGUMENTS)} …+84`);
  });
});
