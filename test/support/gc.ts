/**
 * V8's full collection, for tests that measure the heap, without starting the test process
 * with --expose-gc.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const collectGarbage = runInNewContext('gc') as () => void;
