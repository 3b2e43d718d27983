/**
 * The routing panel: the route that answered, or the closest routes and why they missed,
 * derived when the report is read (and said so when the routes changed since the request).
 */
import { html } from '../../utils/html.js';
import type { RoutingSection } from './routing.js';
import { keyValueTable } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

export const routingPanel = definePanel<RoutingSection>({
  ownHeading: true,
  title: 'Routing',
  badge: (section) =>
    section.matched ? (section.matched.name ?? section.matched.path) : html`<span class="warn">no route</span>`,
  render(section) {
    if (section.matched) {
      return html`<h2>Route matched</h2>
${keyValueTable([
  ['Name', section.matched.name],
  ['Path pattern', html`<code>${section.matched.path}</code>`],
  ['Methods', section.matched.methods.join(', ')],
  ['Requested path', html`<code>${section.path}</code>`],
])}
<h3>Parameters</h3>
${keyValueTable(
  Object.entries(section.params ?? {}).map(([name, value]) => [name, html`<code>${value}</code>`] as const),
  'No parameters',
)}`;
    }
    const closest = section.closest ?? [];
    return html`<h2>No route matched</h2>
${
  section.routeTableChanged
    ? html`<p class="warn" id="route-table-changed">The routes changed since this request (route table ${section.routeTable ?? 'unknown'}): what follows is explained against the routes as they are now.</p>`
    : ''
}
${keyValueTable([
  ['Requested path', html`<code>${section.path}</code>`],
  [
    'Allowed methods',
    section.allowedMethods?.length ? section.allowedMethods.join(', ') : 'none: no route has this path',
  ],
  ...(section.redirectedTo ? [['Redirected to', html`<code>${section.redirectedTo}</code>`] as const] : []),
])}
<h3>Closest routes</h3>
${
  closest.length === 0
    ? html`<p class="muted">No route is declared.</p>`
    : html`<table id="closest-routes"><thead><tr><th>Route</th><th>Path</th><th>Methods</th><th>Why it did not match</th></tr></thead><tbody>${closest.map(
        (miss) =>
          html`<tr><td>${miss.name}</td><td><code>${miss.path}</code></td><td>${miss.methods.join(', ')}</td><td>${miss.reason}</td></tr>`,
      )}</tbody></table>`
}`;
  },
});
