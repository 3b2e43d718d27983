/**
 * The secrets corpus (`test/fixtures/secret-corpus.ts`, issue 26, item 6) as a fuzz family:
 * each case sends one of its requests, its values made unique by the case's id, and one of
 * its secrets must not be in the stored report (debug mode; counted as a leak).
 */
import { secretCorpus } from '../fixtures/secret-corpus.js';
import type { Family } from './cases.js';
import { requestBytes } from './request.js';

/** The fuzz routes' one route made to fail here. */
const FAILING = '/secrets/fail';

export const secrets: Family = {
  name: 'secrets: corpus',
  make(random, id) {
    const corpus = secretCorpus(`f${id}z`);
    const chosen = random.pick(corpus);
    return {
      name: `${chosen.name}`,
      bytes: requestBytes({
        method: chosen.method,
        target: chosen.path,
        headers: chosen.headers,
        ...(chosen.body === undefined ? {} : { body: chosen.body }),
      }),
      secret: random.pick(chosen.secrets),
      serverErrors: chosen.path === FAILING ? [500] : [],
    };
  },
};

export const SECRET_FAMILIES: readonly Family[] = [secrets];
