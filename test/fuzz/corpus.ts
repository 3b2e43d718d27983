/**
 * The corpus for a seed: every case of issue 10 (items 1 to 8), then the malformed-request
 * families in turn until `count` cases, shuffled by the seed; cases that may freeze the
 * service today go last, so that one such finding does not hide the others.
 *
 * The same seed and count give the same cases; only the service's port and the bait
 * files' temporary paths, which some cases name, differ from run to run.
 */
import { materialize, type CaseSpec, type FuzzCase } from './cases.js';
import { BODY_FAMILIES } from './families-body.js';
import { HEAD_FAMILIES } from './families-head.js';
import { REFLECT_FAMILIES } from './families-reflect.js';
import { ROUTE_SHAPE_FAMILIES } from './route-shapes.js';
import { SECRET_FAMILIES } from './families-secrets.js';
import { ISSUE_CASES, type IssueContext } from './issue-cases.js';
import { Random } from './prng.js';

export const FAMILIES = [
  ...HEAD_FAMILIES,
  ...BODY_FAMILIES,
  ...REFLECT_FAMILIES,
  ...ROUTE_SHAPE_FAMILIES,
  ...SECRET_FAMILIES,
];

interface Slot {
  family: string;
  last: boolean;
  make(random: Random, id: number): CaseSpec;
}

export function buildCorpus(seed: number, count: number, context: IssueContext): FuzzCase[] {
  if (count < ISSUE_CASES.length)
    throw new Error(`--count must be at least ${ISSUE_CASES.length}: every case of issue 10 is in every corpus`);
  const random = new Random(seed);
  const slots: Slot[] = ISSUE_CASES.map((issueCase) => ({
    family: issueCase.family,
    last: issueCase.last === true,
    make: (_random: Random, id: number) => issueCase.make(id, context),
  }));
  for (let i = 0; slots.length < count; i++) {
    const family = FAMILIES[i % FAMILIES.length]!;
    slots.push({ family: family.name, last: false, make: (draw, id) => family.make(draw, id, context) });
  }
  const shuffled = random.shuffle(slots);
  const ordered = [...shuffled.filter((slot) => !slot.last), ...shuffled.filter((slot) => slot.last)];
  return ordered.map((slot, index) => {
    const fuzzCase = materialize(slot.make(random, index + 1), index + 1, slot.family);
    fuzzCase.last ||= slot.last;
    return fuzzCase;
  });
}
