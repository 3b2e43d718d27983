/** An error's causes and an AggregateError's members: followed safely, bounded, each with its class, message and raise site. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { installStackTraces } from '../debug/stack-trace.js';
import { lineOf } from '../../test/support/answers.js';
import { repositoryRoot } from '../../test/support/root.js';
import {
  MAX_CHAIN_DEPTH,
  MAX_MEMBERS,
  MAX_RELATED_ERRORS,
  MAX_RELATED_MESSAGE,
  relatedErrors,
  type ChainedError,
} from './error-chain.js';

installStackTraces();
const THIS_FILE = join(repositoryRoot(import.meta.dirname), 'src/errors/error-chain.test.ts');

/** The chain of causes as [class, message] pairs, outermost first. */
function causes(error: Error): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let node = relatedErrors(error).cause; node; node = node.cause) out.push([node.className, node.message]);
  return out;
}

function lowLevel(): Error {
  return new RangeError('port out of range'); // the cause's raise site
}

describe('the cause chain is followed with class, message and raise site', () => {
  it('gives each cause, outermost first', () => {
    const root = new Error('request failed', { cause: new TypeError('bad config', { cause: lowLevel() }) });
    assert.deepEqual(causes(root), [
      ['TypeError', 'bad config'],
      ['RangeError', 'port out of range'],
    ]);
  });
  it("points each at its own first frame in the project's source", () => {
    const cause = lowLevel();
    const node = relatedErrors(new Error('outer', { cause })).cause!;
    assert.equal(node.site?.file, THIS_FILE);
    assert.equal(node.site?.line, lineOf(THIS_FILE, "// the cause's raise site"));
    assert.equal(node.site?.function, 'lowLevel');
  });
  it("keeps a cause's own frames and counts those it shares with the error above", () => {
    const outer = new Error('outer', { cause: lowLevel() });
    const node = relatedErrors(outer).cause!;
    assert.equal(node.frames[0]?.function, 'lowLevel');
    assert.ok(node.framesInCommon > 0, 'the frames below the test function are in common');
    assert.ok(node.frames.length >= 1);
  });
  it('has no links for an error without cause', () => {
    assert.deepEqual(relatedErrors(new Error('alone')), {});
  });
});

describe("an AggregateError's members are listed, bounded", () => {
  it('gives every member with its class and message', () => {
    const aggregate = new AggregateError(
      [new TypeError('one'), new RangeError('two', { cause: new Error('under two') })],
      'all failed',
    );
    const related = relatedErrors(aggregate);
    assert.deepEqual(
      related.members?.map((member) => [member.className, member.message]),
      [
        ['TypeError', 'one'],
        ['RangeError', 'two'],
      ],
    );
    assert.equal(related.members?.[1]?.cause?.message, 'under two');
    assert.equal(related.membersOmitted, undefined);
  });
  it(`shows at most ${MAX_MEMBERS} members and counts the others`, () => {
    const members = Array.from({ length: MAX_MEMBERS + 5 }, (_, i) => new Error(`member ${i}`));
    const related = relatedErrors(new AggregateError(members, 'many'));
    assert.equal(related.members?.length, MAX_MEMBERS);
    assert.equal(related.membersOmitted, 5);
  });
  it('reads only the first members of a huge errors array', () => {
    const members = new Array(1_000_000).fill(new Error('same'));
    const aggregate = new AggregateError([], 'huge');
    (aggregate as { errors: unknown[] }).errors = members;
    const huge = relatedErrors(aggregate);
    assert.equal(huge.members?.length, MAX_MEMBERS);
    assert.deepEqual(
      [huge.members?.[0]?.repeated, huge.members?.[1]?.repeated],
      [undefined, true],
      'one error held twice is followed once',
    );
    assert.equal(huge.membersOmitted, 1_000_000 - MAX_MEMBERS);
  });
});

describe('depth and count are bounded', () => {
  it(`follows causes ${MAX_CHAIN_DEPTH} levels deep, and marks where it stopped`, () => {
    let error = new Error('level 30');
    for (let level = 29; level >= 0; level--) error = new Error(`level ${level}`, { cause: error });
    const chain = causes(error);
    assert.equal(chain.length, MAX_CHAIN_DEPTH);
    let last: ChainedError | undefined = relatedErrors(error).cause;
    while (last?.cause) last = last.cause;
    assert.equal(last?.truncated, true);
  });
  it(`shows at most ${MAX_RELATED_ERRORS} related errors in all`, () => {
    const members = Array.from(
      { length: MAX_MEMBERS },
      (_, i) =>
        new AggregateError(
          Array.from({ length: MAX_MEMBERS }, (_, j) => new Error(`${i}.${j}`)),
          `group ${i}`,
        ),
    );
    const related = relatedErrors(new AggregateError(members, 'tree'));
    let count = 0;
    const walk = (node: ChainedError | undefined): void => {
      if (!node) return;
      count++;
      walk(node.cause);
      node.members?.forEach(walk);
    };
    related.members?.forEach(walk);
    assert.equal(count, MAX_RELATED_ERRORS);
  });
});

describe('a cause that points back is shown once, not followed again', () => {
  it('stops at a cycle of two', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    const node = relatedErrors(a).cause!;
    assert.equal(node.message, 'b');
    assert.equal(node.cause?.message, 'a');
    assert.equal(node.cause?.repeated, true);
    assert.equal(node.cause?.cause, undefined);
  });
  it('stops at an error that is its own cause', () => {
    const self = new Error('self');
    (self as { cause?: unknown }).cause = self;
    const node = relatedErrors(self).cause!;
    assert.deepEqual([node.message, node.repeated, node.cause], ['self', true, undefined]);
  });
  it('stops at an AggregateError that holds itself', () => {
    const aggregate = new AggregateError([], 'me');
    (aggregate as { errors: unknown[] }).errors = [aggregate];
    assert.equal(relatedErrors(aggregate).members?.[0]?.repeated, true);
  });
});

describe('hostile values never break the chain', () => {
  it('describes a cause that is not an Error', () => {
    const string = relatedErrors(new Error('x', { cause: 'a plain string' })).cause!;
    assert.deepEqual(
      [string.className, string.message, string.frames, string.site],
      ['string', 'a plain string', [], undefined],
    );
    const object = relatedErrors(new Error('x', { cause: { code: 42, detail: 'nope' } })).cause!;
    assert.deepEqual([object.className, object.message], ['object', "{ code: 42, detail: 'nope' }"]);
    assert.equal(relatedErrors(new Error('x', { cause: null })).cause?.className, 'null');
  });
  it('leaves out an undefined cause', () => {
    assert.deepEqual(relatedErrors(new Error('x', { cause: undefined })), {});
  });
  it('survives a cause getter that throws', () => {
    const error = new Error('x');
    Object.defineProperty(error, 'cause', {
      get() {
        throw new Error('getter says no');
      },
    });
    const node = relatedErrors(error).cause!;
    assert.equal(node.className, 'unreadable');
    assert.match(node.message, /reading it threw.*getter says no/);
  });
  it('survives a cause whose message, name and stack getters throw', () => {
    const hostile = new Error('hidden');
    for (const key of ['message', 'name', 'stack', 'cause']) {
      Object.defineProperty(hostile, key, {
        get() {
          throw new Error(`no ${key}`);
        },
      });
    }
    const node = relatedErrors(new Error('x', { cause: hostile })).cause!;
    assert.equal(node.className, 'Error');
    assert.match(node.message, /unreadable/);
  });
  it('survives a Proxy cause whose every trap throws', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const proxy = new Proxy(
      {},
      { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap },
    );
    const node = relatedErrors(new Error('x', { cause: proxy })).cause!;
    assert.equal(typeof node.message, 'string');
  });
  it(`cuts a message longer than ${MAX_RELATED_MESSAGE} characters`, () => {
    const node = relatedErrors(new Error('x', { cause: new Error('m'.repeat(100_000)) })).cause!;
    assert.equal(node.message, `${'m'.repeat(MAX_RELATED_MESSAGE)}…`);
  });
  it('gives a class name from the constructor, then the name, then "Error"', () => {
    class DatabaseError extends Error {}
    assert.equal(relatedErrors(new Error('x', { cause: new DatabaseError('db') })).cause?.className, 'DatabaseError');
  });
});
