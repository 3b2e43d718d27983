/**
 * The panels of a report, in menu order: the built-in ones, then one per collector the
 * process registered, then one per other section the report holds (a collector of another
 * instance, or of an older version), shown as tables.
 */
import { memoryCollector } from '../../collectors/memory.js';
import { performanceView } from '../../collectors/performance.js';
import type { Collector } from '../../request-profile.js';
import { collectorPanel, genericPanel } from './collector-panel.js';
import { exceptionPanel } from './exception-panel.js';
import { logsPanel } from './logs-panel.js';
import type { Panel } from './panel.js';
import { requestPanel } from './request-panel.js';
import { responsePanel } from './response-panel.js';
import { routingPanel } from './routing-panel.js';

export const BUILT_IN_PANELS: readonly Panel[] = [
  requestPanel,
  responsePanel,
  exceptionPanel,
  routingPanel,
  collectorPanel(performanceView),
  collectorPanel(memoryCollector),
  logsPanel,
];

export function panelsOf(sections: Record<string, unknown>, collectors: readonly Pick<Collector, 'name' | 'panel'>[] = []): Panel[] {
  const panels = [...BUILT_IN_PANELS];
  const known = new Set(panels.map((panel) => panel.name));
  for (const collector of collectors) {
    if (known.has(collector.name)) continue;
    known.add(collector.name);
    panels.push(collectorPanel(collector));
  }
  for (const name of Object.keys(sections)) {
    if (known.has(name)) continue;
    known.add(name);
    panels.push(genericPanel(name));
  }
  return panels;
}
