/**
 * Issue 26, item 1: random route shapes with several parameters per segment, in both
 * syntaxes, matched as the old regular expression matched them on short paths, and
 * answered without a stall on long paths made to fail late. A failure lists the shapes
 * and paths; `npm run fuzz -- --seed 20262601` runs the same shapes, and more.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzzRouteShapes } from './route-shapes.js';

const SEED = 20262601;
/** Where the work goes, not a speed target (`npm run fuzz` counts stalls over 100 ms): backtracking took seconds. */
const STALL_MS = 1_000;

describe('route shapes with several parameters per segment (issue 26, item 1)', () => {
  const result = fuzzRouteShapes(SEED, 60, { stallMs: STALL_MS });

  it('tries every shape on short and long paths', () => {
    assert.equal(result.shapes, 60);
    assert.ok(result.comparisons >= 60 * 50 && result.hostilePaths >= 60 * 5);
  });
  it('crashes: none', () => assert.deepEqual(result.crashes, []));
  it('agrees with the old regular expression on every short path', () =>
    assert.deepEqual(result.disagreements.slice(0, 20), []));
  it(`stalls over ${STALL_MS} ms on long paths: none`, () => assert.deepEqual(result.stalls.slice(0, 20), []));
});
