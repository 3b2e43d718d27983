/**
 * The toolbar's script, sent inline with the toolbar's nonce. It lists the page's `fetch` and
 * `XMLHttpRequest` calls live, opens an item's panel on click, and minimises the bar (kept in
 * localStorage). It is plain browser JavaScript in strings (no `${` in them), not compiled functions turned
 * into text: a transform (tsx keeps names with helpers) would put calls it cannot resolve in
 * the page. The page's calls are wrapped so that their answers and errors reach the page as
 * they were: the wrapper keeps no body, reads only status and headers, and adds one global,
 * `window.__vigil`.
 */

/**
 * Pure helpers the other parts use, unit-tested on their own (`toolbar-script.test.ts`).
 * `worstStatus`: of statuses (null pending, 0 failed), the one the badge shows: a failure,
 * else the highest. `debugLinkIn`: the report link in a raw header block (what
 * `getAllResponseHeaders` gives, only the exposed headers across origins), if safe to link.
 * `shownUrl`: a URL as listed, the path alone on the page's own origin.
 */
export const TOOLBAR_HELPERS = String.raw`
function worstStatus(statuses) {
  var worst = null;
  for (var i = 0; i < statuses.length; i++) {
    var status = statuses[i];
    if (status === null || status === undefined) continue;
    if (worst === null || status === 0 || (worst !== 0 && status > worst)) worst = status;
  }
  return worst;
}
function safeLink(link) {
  return typeof link === 'string' && /^(https?:\/\/|\/(?!\/))[^\s"<>]*$/i.test(link) ? link : null;
}
function debugLinkIn(rawHeaders) {
  var found = /(?:^|\n)x-debug-token-link:[ \t]*([^\r\n]*)/i.exec(String(rawHeaders || ''));
  return found ? safeLink(found[1].trim()) : null;
}
function shownUrl(url, origin) {
  if (typeof url !== 'string') return '(unknown)';
  try {
    var parsed = new URL(url, origin + '/');
    return parsed.origin === origin ? parsed.pathname + parsed.search : parsed.href;
  } catch (error) {
    return url;
  }
}
`;

/**
 * Installs `window.__vigil` once: `requests` (the newest {@link KEPT_REQUESTS}), `total`, and
 * `listen(fn)`. fetch gives back the page's own promise; XHR's open and send call the
 * browser's first and throw what it throws.
 */
const RECORDER = `
function installRecorder() {
  if (window.__vigil) return window.__vigil;
  var listeners = [];
  var api = { requests: [], total: 0, listen: function (listener) { listeners.push(listener); } };
  Object.defineProperty(window, '__vigil', { value: api });
  function notify() {
    for (var i = 0; i < listeners.length; i++) {
      try { listeners[i](); } catch (error) {}
    }
  }
  function begin(method, url, start) {
    var entry = { method: method, url: url, status: null, duration: null, link: null, start: start };
    api.requests.push(entry);
    if (api.requests.length > KEPT_REQUESTS) api.requests.shift();
    api.total++;
    notify();
    return entry;
  }
  function end(entry, status, link) {
    entry.status = status;
    entry.link = link;
    entry.duration = performance.now() - entry.start;
    notify();
  }
  function forget(entry) {
    var at = api.requests.indexOf(entry);
    if (at !== -1) api.requests.splice(at, 1);
    api.total--;
    notify();
  }
  function urlOf(input) {
    if (typeof input === 'string') return input;
    if (input instanceof URL) return input.href;
    if (typeof Request === 'function' && input instanceof Request) return input.url;
    return null;
  }
  function methodOf(input, init) {
    var method = init && typeof init.method === 'string' ? init.method
      : typeof Request === 'function' && input instanceof Request ? input.method : 'GET';
    return method.toUpperCase();
  }
  var nativeFetch = window.fetch;
  if (typeof nativeFetch === 'function') {
    window.fetch = function fetch(input, init) {
      var start = performance.now();
      var promise = nativeFetch.apply(this, arguments);
      try {
        var entry = begin(methodOf(input, init), urlOf(input), start);
        promise.then(function (response) {
          end(entry, response.status, safeLink(response.headers.get('x-debug-token-link')));
        }, function () { end(entry, 0, null); });
      } catch (error) {}
      return promise;
    };
  }
  var proto = typeof XMLHttpRequest === 'function' ? XMLHttpRequest.prototype : null;
  if (proto) {
    var nativeOpen = proto.open;
    var nativeSend = proto.send;
    var opened = new WeakMap();
    proto.open = function open(method, url) {
      var result = nativeOpen.apply(this, arguments);
      opened.set(this, { method: typeof method === 'string' ? method.toUpperCase() : 'GET', url: urlOf(url) });
      return result;
    };
    proto.send = function send() {
      var call = opened.get(this);
      var entry = null;
      var xhr = this;
      if (call) {
        entry = begin(call.method, call.url, performance.now());
        xhr.addEventListener('loadend', function () {
          end(entry, xhr.status, debugLinkIn(xhr.getAllResponseHeaders()));
        }, { once: true });
      }
      try {
        return nativeSend.apply(this, arguments);
      } catch (error) {
        // Not sent (sent twice, not opened): not a request of the page.
        if (entry) forget(entry);
        throw error;
      }
    };
  }
  return api;
}
`;

/**
 * Wires the bar: minimised from localStorage at once (the script follows the bar, so before
 * it is painted), click to pin a panel, Escape to close, and the requests item kept live.
 * Built with DOM calls and textContent, never markup: no URL of a request can inject any.
 */
const BAR = `
function wireBar(bar, api) {
  var KEY = 'vigil.toolbar.minimised';
  var restore = bar.querySelector('.vt-restore');
  function minimise(on, keep) {
    bar.classList.toggle('vt-minimised', on);
    restore.setAttribute('aria-expanded', on ? 'false' : 'true');
    if (!keep) return;
    try { if (on) localStorage.setItem(KEY, '1'); else localStorage.removeItem(KEY); } catch (error) {}
  }
  var stored = false;
  try { stored = localStorage.getItem(KEY) === '1'; } catch (error) {}
  minimise(stored, false);
  bar.querySelector('.vt-min').addEventListener('click', function () { minimise(true, true); });
  restore.addEventListener('click', function () { minimise(false, true); });
  function closeAll(except) {
    var open = bar.querySelectorAll('.vt-item.vt-open');
    for (var i = 0; i < open.length; i++) {
      if (open[i] === except) continue;
      open[i].classList.remove('vt-open');
      open[i].querySelector('.vt-tab').setAttribute('aria-expanded', 'false');
    }
  }
  bar.addEventListener('click', function (event) {
    var tab = event.target instanceof Element ? event.target.closest('.vt-tab') : null;
    if (!tab || !bar.contains(tab)) return;
    var item = tab.parentNode;
    closeAll(item);
    var open = item.classList.toggle('vt-open');
    tab.setAttribute('aria-expanded', open ? 'true' : 'false');
  });
  document.addEventListener('keydown', function (event) { if (event.key === 'Escape') closeAll(null); });
  // A panel that would run past the window's right edge opens leftwards from its item.
  function place(event) {
    var item = event.target instanceof Element ? event.target.closest('.vt-item') : null;
    if (!item || !bar.contains(item)) return;
    item.classList.remove('vt-flip');
    var panel = item.querySelector('.vt-panel');
    if (panel.getBoundingClientRect().right > document.documentElement.clientWidth) item.classList.add('vt-flip');
  }
  bar.addEventListener('mouseover', place);
  bar.addEventListener('focusin', place);
  bar.addEventListener('click', place);
  var item = bar.querySelector('.vt-requests');
  var tab = item.querySelector('.vt-tab');
  var rows = item.querySelector('tbody');
  function cell(row, text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }
  function toneOf(status) {
    if (status === null) return '';
    if (status === 0 || status >= 400) return 'vt-error';
    return status >= 300 ? 'vt-redirect' : 'vt-ok';
  }
  function render() {
    var requests = api.requests;
    item.hidden = api.total === 0;
    var worst = worstStatus(requests.map(function (entry) { return entry.status; }));
    tab.textContent = api.total + (api.total === 1 ? ' request' : ' requests') + (worst === null ? '' : ' ' + (worst === 0 ? 'failed' : worst));
    tab.className = 'vt-tab ' + toneOf(worst);
    rows.textContent = '';
    for (var i = requests.length - 1; i >= 0; i--) {
      var entry = requests[i];
      var row = document.createElement('tr');
      cell(row, entry.method);
      cell(row, shownUrl(entry.url, location.origin), 'vt-url').title = entry.url || '';
      cell(row, entry.status === null ? '...' : entry.status === 0 ? 'failed' : String(entry.status), toneOf(entry.status));
      cell(row, entry.duration === null ? '' : entry.duration.toFixed(1) + ' ms');
      var report = cell(row, '');
      if (entry.link) {
        var link = document.createElement('a');
        link.href = entry.link;
        link.textContent = 'report';
        report.appendChild(link);
      }
      rows.appendChild(row);
    }
  }
  api.listen(render);
  render();
}
`;

/** How many of the page's requests the bar keeps listed; its count goes on. */
const KEPT_REQUESTS = 100;

/** The script that goes before `</head>`: it wraps fetch and XHR before the page's own scripts run. */
export function recorderScript(): string {
  return `(function(){"use strict";var KEPT_REQUESTS=${KEPT_REQUESTS};${TOOLBAR_HELPERS}${RECORDER}installRecorder();})();`;
}

/**
 * The script that follows the bar: it installs the recorder too (a page without `</head>`
 * gets only this one), then wires the bar.
 */
export function barScript(): string {
  return `(function(){"use strict";var KEPT_REQUESTS=${KEPT_REQUESTS};${TOOLBAR_HELPERS}${RECORDER}${BAR}var bar=document.getElementById("vigil-toolbar");if(bar)wireBar(bar,installRecorder());})();`;
}
