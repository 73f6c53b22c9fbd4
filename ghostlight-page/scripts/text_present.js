// Ghostlight text presence: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0]);`. Reads only.
//
// opts = {query}
// Answers whether the visible text of this document contains `query`, case-insensitively and
// with whitespace normalized on both sides: the body's innerText, then the content of open
// shadow roots of visible hosts, without subtrees outside the accessibility tree (glShownText
// and glVisible of dom.js, prepended). Frames are not entered here: the adapter runs this script in
// each frame document the call's gate admits (ops/frames.rs). Only a boolean leaves the page.
(function glTextPresent(opts) {
  'use strict';
  const QUERY = glSquash(opts.query).toLowerCase();
  if (QUERY === '') return true;

  const has = (text) => glSquash(text).toLowerCase().includes(QUERY);

  function search(doc) {
    const body = doc.body || doc.documentElement;
    if (!body) return false;
    if (has(glShownText(body))) return true;
    const all = doc.querySelectorAll('*');
    const hosts = [];
    for (const el of all) {
      if (el.shadowRoot) hosts.push(el.shadowRoot);
    }
    // Open shadow roots, nested ones included (each root's own hosts are queued in turn).
    for (let i = 0; i < hosts.length; i++) {
      const shadow = hosts[i];
      if (!glVisible(shadow.host) || shadow.host.closest(GL_OUT_OF_TREE)) continue;
      for (const el of shadow.querySelectorAll('*')) {
        if (el.shadowRoot) hosts.push(el.shadowRoot);
      }
      for (const child of shadow.children) {
        if (glVisible(child) && has(glShownText(child))) return true;
      }
    }
    return false;
  }
  return search(document);
})
