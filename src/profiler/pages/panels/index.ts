/** The built-in panels, in menu order; any other section gets the generic panel. */
import { exceptionPanel } from './exception-panel.js';
import { genericPanel } from './generic-panel.js';
import { logsPanel } from './logs-panel.js';
import { memoryPanel } from './memory-panel.js';
import type { Panel } from './panel.js';
import { performancePanel } from './performance-panel.js';
import { requestPanel } from './request-panel.js';
import { responsePanel } from './response-panel.js';
import { routingPanel } from './routing-panel.js';

export const BUILT_IN_PANELS: readonly Panel[] = [requestPanel, responsePanel, exceptionPanel, routingPanel, performancePanel, memoryPanel, logsPanel];

/** The panels of a report: the built-in ones, then one per other section, in the report's order. */
export function panelsOf(sections: Record<string, unknown>): Panel[] {
  const known = new Set(BUILT_IN_PANELS.map((panel) => panel.name));
  return [...BUILT_IN_PANELS, ...Object.keys(sections).filter((name) => !known.has(name)).map(genericPanel)];
}
