/**
 * The registry of built-in collectors, in the order their panels are shown: each one unit
 * (`defineCollector`) with its panel beside it (`database-panel.ts` beside `database.ts`; the
 * parts they share are in `views/`). The pages, `profiler:show` and the toolbar read it.
 */
import { SiteMemory } from '../activity/request-activity.js';
import type { CollectorUnit } from '../model/collector-unit.js';
import type { Collector } from '../model/request-profile.js';
import type { CollectorSetup } from './collector-setup.js';
import { databaseCollector } from './database.js';
import { exceptionCollector } from './exception.js';
import { httpClientCollector } from './http-client.js';
import { logsCollector } from './logs.js';
import { memoryCollector } from './memory.js';
import { performanceCollector } from './performance.js';
import { requestCollector } from './request.js';
import { responseCollector } from './response.js';
import { routingCollector } from './routing.js';

export const BUILT_IN_COLLECTORS: ReadonlyArray<CollectorUnit<unknown, CollectorSetup>> = [
  requestCollector,
  responseCollector,
  exceptionCollector,
  routingCollector,
  performanceCollector,
  memoryCollector,
  logsCollector,
  databaseCollector,
  httpClientCollector,
];

type DefaultCollectorsOptions = Omit<CollectorSetup, 'sites'>;

/** The built-in collectors of one kernel: those its options leave in, each created (some hold channels until closed). */
export function defaultCollectors(options: DefaultCollectorsOptions): Collector[] {
  const setup: CollectorSetup = { ...options, sites: new SiteMemory() };
  return BUILT_IN_COLLECTORS.flatMap((unit) => unit.create(setup) ?? []);
}
