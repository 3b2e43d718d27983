/**
 * The panels of a report, in menu order: one per collector the process registered (the
 * built-in ones first, each bringing its panel as any application collector does), then
 * one per other section the report holds (a collector of another instance, or of an older
 * version), shown as tables.
 */
import type { Collector } from '../../model/request-profile.js';
import { collectorPanel, genericPanel } from './collector-panel.js';
import type { Panel } from '../../model/panel.js';

export function panelsOf(
  sections: Record<string, unknown>,
  collectors: readonly Pick<Collector, 'name' | 'panel'>[] = [],
): Panel[] {
  const panels: Panel[] = [];
  const known = new Set<string>();
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
