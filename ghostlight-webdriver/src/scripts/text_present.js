// Ghostlight text presence: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0]);`. Reads only.
//
// opts = {query, maxFrameDepth}
// Answers whether the visible text of the page contains `query`, case-insensitively and with
// whitespace normalized on both sides: the body's innerText, then the content of open shadow
// roots of visible hosts, then (recursively, at most `maxFrameDepth` deep) the documents of
// visible same-origin iframes. Only a boolean leaves the page.
(function glTextPresent(opts) {
  'use strict';
  const squash = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim().toLowerCase();
  const QUERY = squash(opts.query);
  const MAX_FRAME_DEPTH = Math.max(0, Number(opts.maxFrameDepth) | 0);
  if (QUERY === '') return true;

  function visible(el) {
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true })) return false;
    } else {
      const view = el.ownerDocument.defaultView;
      const style = view ? view.getComputedStyle(el) : null;
      if (!style || style.display === 'none' || style.visibility === 'hidden') return false;
    }
    return el.getClientRects().length > 0;
  }
  const has = (text) => squash(text).includes(QUERY);

  function search(doc, level) {
    const body = doc.body || doc.documentElement;
    if (!body) return false;
    if (has(body.innerText)) return true;
    const all = doc.querySelectorAll('*');
    const hosts = [];
    const frames = [];
    for (const el of all) {
      if (el.shadowRoot) hosts.push(el.shadowRoot);
      if (el.localName === 'iframe' || el.localName === 'frame') frames.push(el);
    }
    // Open shadow roots, nested ones included (each root's own hosts are queued in turn).
    for (let i = 0; i < hosts.length; i++) {
      const shadow = hosts[i];
      if (!visible(shadow.host)) continue;
      for (const el of shadow.querySelectorAll('*')) {
        if (el.shadowRoot) hosts.push(el.shadowRoot);
      }
      for (const child of shadow.children) {
        if (visible(child) && has(child.innerText)) return true;
      }
    }
    if (level >= MAX_FRAME_DEPTH) return false;
    for (const frame of frames) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (_) { inner = null; }
      if (inner && visible(frame) && search(inner, level + 1)) return true;
    }
    return false;
  }
  return search(document, 0);
})
