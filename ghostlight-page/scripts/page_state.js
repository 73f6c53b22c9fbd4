// Ghostlight page state: one function expression, run through WebDriver "Execute Script".
//
// Returns {url, title, readyState, timeOrigin, nonce, epoch, docUrl, navigating, busy, status}
// (status: the navigation entry's HTTP responseStatus, 0 when the engine does not say). On its first
// run in a document it stamps the document (hidden symbol-keyed window properties, invisible
// to ordinary property enumeration):
// - `gl.doc`: a per-document nonce (crypto.randomUUID, or Math.random where that is missing);
// - `gl.epoch`: a counter of `pageshow` events with `persisted` (back/forward-cache restores,
//   which keep the document and its timeOrigin on Chromium);
// - `gl.url`: the URL (without fragment) the document had when first stamped;
// - wrappers around window.alert/confirm/prompt that record the kind of the last dialog in
//   `gl.dialog` ({kind, open}) before the dialog opens. The record can only be read once the
//   dialog is closed (no script runs while one is open); a closed record is cleared here;
// - `gl.nav`: where a navigation to another document this document started is going, as soon
//   as it is known: a form submission that was not prevented (recorded when its `submit`
//   event reaches the window, withdrawn if it turns out prevented) and any Navigation API
//   `navigate` event that is not same-document. A form submission starts its navigation in a
//   later task (on Chromium about 60 ms after the click's input returns), so without this an
//   action that submits looks like one that did nothing. `navigating` answers the record and
//   clears it: every read consumes it, so the read before an action drops stale ones;
// - `gl.work`: work a trusted input event started that may still navigate: timers of up to
//   TRACK_MS its handlers set (a handler that changes `location` 100 ms after a click), and
//   requests (`fetch`, `XMLHttpRequest`) its handlers or those timers sent. `busy` answers
//   whether any is still pending, so the adapter waits for it (within its own bound) before
//   it decides the action navigated nowhere. Other timers and requests are never counted.
(function glPageState() {
  const w = window;
  const DOC = Symbol.for('gl.doc');
  const EPOCH = Symbol.for('gl.epoch');
  const URL_AT = Symbol.for('gl.url');
  const DIALOG = Symbol.for('gl.dialog');
  const NAV = Symbol.for('gl.nav');
  const WORK = Symbol.for('gl.work');
  // Timers longer than this are not an action's immediate consequence (the adapter's wait
  // after an action is shorter still).
  const TRACK_MS = 1000;
  // A timer counts as pending until it ran, or this long past its due time (cleared by a way
  // the wrapper does not see).
  const OVERDUE_MS = 250;
  const withoutFragment = (href) => {
    const at = href.indexOf('#');
    return at < 0 ? href : href.slice(0, at);
  };
  const hidden = (key, value) =>
    Object.defineProperty(w, key, { value, writable: true, configurable: true, enumerable: false });
  if (typeof w[DOC] !== 'string') {
    let nonce = '';
    try {
      nonce = w.crypto.randomUUID();
    } catch (_) {
      nonce = '';
    }
    if (!nonce) {
      nonce = 'r' + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
    }
    hidden(DOC, nonce);
    hidden(EPOCH, 0);
    hidden(URL_AT, withoutFragment(String(w.location.href)));
    hidden(DIALOG, undefined);
    w.addEventListener('pageshow', (event) => {
      if (event.persisted) w[EPOCH] += 1;
    }, true);
    hidden(NAV, null);
    w.addEventListener('submit', (event) => {
      const form = event.target;
      if (event.defaultPrevented || !form || typeof form.action !== 'string') return;
      const submitter = event.submitter;
      const target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') || '';
      if (target !== '' && target !== '_self') return;
      const action = (submitter && submitter.formAction) || form.action;
      w[NAV] = String(action || w.location.href);
      // A handler after this one may still cancel it: withdraw the record then.
      setTimeout(() => {
        if (event.defaultPrevented && w[NAV] === String(action || w.location.href)) w[NAV] = null;
      }, 0);
    }, false);
    try {
      w.navigation.addEventListener('navigate', (event) => {
        try {
          if (!event.destination.sameDocument && !event.downloadRequest) w[NAV] = String(event.destination.url);
        } catch (_) {}
      });
    } catch (_) {}
    const work = { timers: new Map(), requests: 0, depth: 0 };
    hidden(WORK, work);
    const INPUT = new Set(['click', 'auxclick', 'dblclick', 'mousedown', 'mouseup', 'pointerdown',
      'pointerup', 'keydown', 'keyup', 'keypress', 'submit', 'change', 'input', 'drop', 'dragend']);
    // Inside a listener of a trusted input event (timers: directly only; requests: also from
    // such a timer's callback).
    const fromInput = () => {
      const event = w.event;
      return !!(event && event.isTrusted && INPUT.has(event.type));
    };
    const setTimer = w.setTimeout;
    const clearTimer = w.clearTimeout;
    if (typeof setTimer === 'function' && typeof clearTimer === 'function') {
      w.setTimeout = function setTimeout(handler, delay, ...rest) {
        const wait = Number(delay) || 0;
        if (typeof handler !== 'function' || work.depth > 0 || !(wait <= TRACK_MS) || !fromInput()) {
          return setTimer.call(w, handler, delay, ...rest);
        }
        let id = 0;
        const run = function (...args) {
          work.timers.delete(id);
          work.depth += 1;
          try {
            return handler.apply(this, args);
          } finally {
            work.depth -= 1;
          }
        };
        id = setTimer.call(w, run, delay, ...rest);
        work.timers.set(id, w.performance.now() + Math.max(0, wait));
        return id;
      };
      w.clearTimeout = function clearTimeout(id) {
        work.timers.delete(id);
        return clearTimer.call(w, id);
      };
    }
    const counted = (promise) => {
      work.requests += 1;
      let done = false;
      const end = () => {
        if (!done) work.requests -= 1;
        done = true;
      };
      promise.then(end, end);
    };
    const originalFetch = w.fetch;
    if (typeof originalFetch === 'function') {
      w.fetch = function fetch(...args) {
        // Always on the window: a bare `fetch()` call has no `this` of its own.
        const answer = originalFetch.apply(w, args);
        if ((work.depth > 0 || fromInput()) && answer && typeof answer.then === 'function') counted(answer);
        return answer;
      };
    }
    const xhr = w.XMLHttpRequest && w.XMLHttpRequest.prototype;
    const originalSend = xhr && xhr.send;
    if (typeof originalSend === 'function') {
      xhr.send = function send(...args) {
        if (work.depth > 0 || fromInput()) {
          counted(new Promise((resolve) => this.addEventListener('loadend', resolve, { once: true })));
        }
        return originalSend.apply(this, args);
      };
    }
    for (const kind of ['alert', 'confirm', 'prompt']) {
      const original = w[kind];
      if (typeof original !== 'function') continue;
      w[kind] = function (...args) {
        w[DIALOG] = { kind, open: true };
        try {
          return original.apply(w, args);
        } finally {
          w[DIALOG] = { kind, open: false };
        }
      };
    }
  }
  const record = w[DIALOG];
  if (record && !record.open) w[DIALOG] = undefined;
  let status = 0;
  try {
    const entry = w.performance.getEntriesByType('navigation')[0];
    status = entry && typeof entry.responseStatus === 'number' ? entry.responseStatus : 0;
  } catch (_) {
    status = 0;
  }
  const navigating = w[NAV] === undefined ? null : w[NAV];
  if (navigating !== null) w[NAV] = null;
  let busy = false;
  const work = w[WORK];
  if (work && typeof work === 'object') {
    const now = w.performance.now();
    for (const [id, due] of work.timers) {
      if (due + OVERDUE_MS < now) work.timers.delete(id);
    }
    busy = work.requests > 0 || work.timers.size > 0;
  }
  return {
    url: String(w.location.href),
    title: String(w.document.title),
    readyState: String(w.document.readyState),
    timeOrigin: w.performance.timeOrigin,
    nonce: w[DOC],
    epoch: w[EPOCH],
    docUrl: w[URL_AT],
    navigating,
    busy,
    status,
  };
})
