/**
 * `/_profiler/exceptions`: one row per exception group (one fingerprint), the group seen last
 * first, with its count, when it was first and last seen, its statuses and routes, and the
 * links to its newest report and to the list of its occurrences.
 */
import { html, type SafeHtml } from '../../utils/html.js';
import { PROFILER_PATH } from '../../debug/request-debug.js';
import type { ExceptionGroup } from '../storage/exception-groups.js';
import { formatTime, renderPage, statusBadge } from '../views/layout.js';

/** Where a group's occurrences are listed: the search by its fingerprint. */
export function occurrencesOf(fingerprint: string): string {
  return `${PROFILER_PATH}/search?fingerprint=${encodeURIComponent(fingerprint)}`;
}

export function renderExceptionsPage(groups: readonly ExceptionGroup[], window: number): string {
  const body = html`<h1>Exceptions</h1>
<p class="muted">Grouped by class, place raised and message (numbers, ids and quoted values masked), among the newest ${window} reports with an exception; the group seen last first.</p>
<section class="card">${groups.length === 0 ? html`<p class="muted" id="no-groups">No exception was raised in the stored reports.</p>` : renderGroups(groups)}</section>`;
  return renderPage({ title: 'Exceptions - vigil profiler', body });
}

function renderGroups(groups: readonly ExceptionGroup[]): SafeHtml {
  return html`<table id="groups"><thead><tr><th>Exception</th><th>Count</th><th>First seen</th><th>Last seen</th><th>Statuses</th><th>Routes</th><th></th></tr></thead><tbody>
${groups.map(
  (
    group,
  ) => html`<tr id="group-${group.fingerprint}" data-fingerprint="${group.fingerprint}"><td><b class="bad">${group.exception}</b>
<div class="mono">${group.message}</div><div class="muted mono">${group.site}</div></td>
<td class="num"><b>${group.count}</b></td><td>${formatTime(group.firstSeen)}</td><td>${formatTime(group.lastSeen)}</td>
<td>${group.statuses.map((status) => html`${statusBadge(status)} `)}</td><td class="mono">${group.routes.map((route) => html`<div>${route}</div>`)}</td>
<td><a href="${PROFILER_PATH}/${group.newest}">Newest report</a><br><a href="${occurrencesOf(group.fingerprint)}">Occurrences</a></td></tr>`,
)}</tbody></table>`;
}
