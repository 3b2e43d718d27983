/**
 * The routing section as stored, its panel and its text: the route that answered, or the
 * routes a few letters from the path, the closest routes and why they missed, derived when the report is read (and said so when the
 * routes changed since the request).
 */
import { html } from '../../utils/html.js';
import type { RouteHint } from '../../errors/error-hints.js';
import { renderHints } from '../../errors/render-hints.js';
import type { RouteMiss } from '../../routing/route-matcher.js';
import { keyValueTable } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

export interface RoutingSection {
  /** The path as sent, percent-encoding kept. */
  path: string;
  matched: { name: string | null; path: string; methods: string[] } | null;
  params?: Record<string, string>;
  /** Unmatched only: the version of the route table the request met (`RouteMatcher.version`). */
  routeTable?: string;
  /** Derived when read (stored by reports written before `routeTable`). */
  allowedMethods?: readonly string[];
  /** Derived when read (stored by reports written before `routeTable`). */
  closest?: RouteMiss[];
  /** Derived when read: the routes a few letters from the path ("did you mean"). */
  nearRoutes?: readonly RouteHint[];
  /** Derived when read: the routes changed since the request, so the explanations are today's routes', not its own. */
  routeTableChanged?: boolean;
  redirectedTo?: string | null;
}

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
${renderHints({ nearRoutes: section.nearRoutes ?? [] }, 3)}
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

/** The command line's lines: the route and its parameters, or why none matched. */
export function routingText(section: RoutingSection): string[] {
  if (section.matched) {
    const { name, path, methods } = section.matched;
    return [
      `route ${name ?? ''} ${path} (${methods.join(', ')})`,
      ...Object.entries(section.params ?? {}).map(([param, value]) => `param ${param} = ${value}`),
    ];
  }
  const allowed = section.allowedMethods?.length ? section.allowedMethods.join(', ') : 'none';
  const lines = [`no route matched ${section.path}; allowed methods: ${allowed}`];
  if (section.redirectedTo) lines.push(`redirected to ${section.redirectedTo}`);
  if (section.routeTableChanged)
    lines.push(
      `the routes changed since this request (route table ${section.routeTable ?? 'unknown'}): explained against the routes as they are now`,
    );
  for (const near of section.nearRoutes ?? []) lines.push(`did you mean: ${near.methods.join('|')} ${near.path}`);
  for (const miss of section.closest ?? [])
    lines.push(`closest: ${miss.methods.join('|')} ${miss.path}: ${miss.reason}`);
  return lines;
}
