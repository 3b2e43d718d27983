/**
 * The live list's script: every two seconds it asks the same search in JSON and puts the
 * reports newer than the newest it shows on top, the oldest rows leaving past the page's limit, built with `textContent` (nothing from a report becomes
 * markup). It runs under the page's policy by its nonce, and reaches only the profiler.
 */
import { PROFILER_PATH } from '../../debug/request-debug.js';

/** Seconds between two asks, as the page says. */
const LIVE_EVERY_S = 2;

// Plain ES2020 in a string: the page ships it as is, no build step, no global.
export const LIVE_LIST_SCRIPT = `(() => {
  const live = document.getElementById('live');
  const body = document.getElementById('results-body');
  if (!live || !body) return;
  const base = ${JSON.stringify(PROFILER_PATH)};
  const limit = Number(live.dataset.limit) || 50;
  const seen = new Set(Array.from(body.querySelectorAll('tr[data-token]'), (row) => row.dataset.token));
  const statusClass = (s) => (s >= 500 || s === 499 ? 'bad' : s >= 400 ? 'warn' : 'ok');
  const ms = (v) => (v === null || v === undefined ? 'n/a' : v >= 1000 ? (v / 1000).toFixed(2) + ' s' : v.toFixed(v < 10 ? 2 : 1) + ' ms');
  const time = (t) => new Date(t).toISOString().replace('T', ' ').replace('Z', ' UTC');
  const element = (name, text, className) => {
    const node = document.createElement(name);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  const link = (href, text, className) => {
    const a = element('a', text, className);
    a.href = href;
    return a;
  };
  const cell = (row, content, className) => {
    const td = element('td', undefined, className);
    td.append(content);
    row.append(td);
  };
  const rowOf = (r) => {
    const row = element('tr', undefined, 'listed fresh');
    row.dataset.token = r.token;
    cell(row, element('span', String(r.status), 'badge ' + statusClass(r.status)));
    cell(row, r.method);
    const url = element('td', r.url, 'url mono');
    url.title = r.url;
    row.append(url);
    cell(row, r.route === null ? element('span', 'no route', 'muted') : r.route, 'mono');
    cell(row, r.exception === null ? '' : link(base + '/exceptions#group-' + r.fingerprint, r.exception, 'group-link bad'));
    cell(row, r.statements === null ? '' : String(r.statements), 'num');
    cell(row, r.calls === null ? '' : String(r.calls), 'num');
    cell(row, ms(r.duration));
    cell(row, time(r.time));
    cell(row, link(base + '/' + r.token, r.token, 'mono row-link'));
    return row;
  };
  const ask = async () => {
    try {
      const answer = await fetch(base + '/search?' + live.dataset.query, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!answer.ok) throw new Error(String(answer.status));
      const reports = await answer.json();
      // Newest first: what comes before the newest row shown is new.
      const fresh = [];
      for (const r of reports) {
        if (seen.has(r.token)) break;
        fresh.push(r);
      }
      for (const r of fresh.reverse()) {
        seen.add(r.token);
        body.prepend(rowOf(r));
      }
      while (body.rows.length > limit) seen.delete(body.rows[body.rows.length - 1].dataset.token), body.deleteRow(-1);
      if (body.rows.length > 0) document.getElementById('no-results')?.remove();
      live.dataset.state = 'on';
      live.textContent = 'Live: new requests appear as they come (checked ' + new Date().toLocaleTimeString() + ')';
    } catch {
      live.dataset.state = 'off';
      live.textContent = 'Live: the profiler does not answer; trying again';
    }
    setTimeout(ask, ${LIVE_EVERY_S * 1000});
  };
  setTimeout(ask, ${LIVE_EVERY_S * 1000});
})();`;
