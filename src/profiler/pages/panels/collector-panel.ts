/**
 * The page panel of a collector: its own title, badge and renderer when it brings them
 * (`Collector.panel`), otherwise a title made from its name and its section as tables.
 * The heading is always the title, so that menu and panel agree.
 */
import { html, SafeHtml } from '../../../utils/html.js';
import type { Collector } from '../../model/request-profile.js';
import { formatNumber, renderValue } from '../../views/generic-panel.js';
import type { Panel, PanelBadge } from '../../model/panel.js';

export function collectorPanel(collector: Pick<Collector, 'name' | 'panel'>): Panel {
  const spec = collector.panel ?? {};
  const title = spec.title ?? titleOf(collector.name);
  const badge = spec.badge;
  return {
    name: collector.name,
    title,
    ...(spec.absent === undefined ? {} : { absent: spec.absent }),
    ...(badge === undefined
      ? {}
      : { badge: (section: unknown, report) => badgeHtml(badge.call(spec, section, report)) }),
    ...(spec.summary === undefined ? {} : { summary: (section: unknown, report) => spec.summary!(section, report) }),
    render: (section, report, view = { query: {} }) => {
      if (spec.render && spec.ownHeading) return spec.render(section, report, view);
      return html`<h2>${title}</h2>${spec.render ? spec.render(section, report, view) : renderValue(section)}`;
    },
  };
}

/** A section no collector of this process knows (another instance's, an older one's). */
export function genericPanel(name: string): Panel {
  return collectorPanel({ name });
}

/** `dbQueries` and `db_queries` read `Db queries`. */
export function titleOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function badgeHtml(badge: PanelBadge | undefined): SafeHtml | string {
  if (badge === undefined) return '';
  if (badge instanceof SafeHtml) return badge;
  if (typeof badge !== 'object') return String(badge);
  return html`<span class="pill${badge.status ? ` ${badge.status}` : ''}">${typeof badge.value === 'number' ? formatNumber(badge.value) : badge.value}</span>`;
}
