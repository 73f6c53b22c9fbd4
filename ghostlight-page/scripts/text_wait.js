// Ghostlight text wait: one function expression, run through WebDriver "Execute Async Script"
// as `return (FN)(arguments[0], arguments[1]);` after dom.js, `glTextPresent` (text_present.js,
// unchanged: what counts as shown text is decided there only) and `glFramesHere`
// (frames_here.js as a function). Reads only.
//
// opts = {query, present, within, throttle, sweep, doc}; done = the driver's callback.
// `doc` is the nonce page_state.js stamped on the document the caller authorized (`gl.doc`):
// before every check the script makes sure it still runs in that document, and answers
// 'gone' without reading anything otherwise (a driver may run it again in the document a
// navigation brought: chromedriver does).
// Waits until this document's visible text contains `query` (present: true) or no longer does
// (present: false), as glTextPresent answers, for at most `within` ms:
// - checks at once; then re-checks when the document changes (a MutationObserver on the
//   document and on every open shadow root glTextPresent reads: child lists, character data,
//   attributes, which decide what is shown), at most once every `throttle` ms (or twice the
//   last check's cost, so a huge page is not kept busy), and every `sweep` ms whatever happens
//   (changes no mutation reports: style sheets, media queries); once more when `within` ends.
// - frames are not entered here: when the document shows frames (glFramesHere) and the answer
//   depends on them (present: the text is not in this document; absent: it is not either),
//   it answers 'frames' at once, and the adapter searches the frame documents the call's gate
//   admits (ops/frames.rs), as text_present does.
// Answers {end}: 'held' (at the first check), 'became' (later), 'ran_out', 'frames' (the
// adapter decides), 'gone' (not the authorized document) or 'failed' (a check threw). Only
// that word leaves the page. A navigation kills the script with its document: the driver
// answers an error or null.
(function glTextWait(opts, done) {
  'use strict';
  const started = performance.now();
  const timer = window.setTimeout.bind(window);
  const cancel = window.clearTimeout.bind(window);
  let finished = false;
  let first = true;
  let scheduled = null;
  let sweep = null;
  let lastCheck = -Infinity;
  let cost = 0;
  const observed = new WeakSet();
  const DOC = Symbol.for('gl.doc');
  let observer = null;

  function finish(end) {
    if (finished) return;
    finished = true;
    if (observer) observer.disconnect();
    if (scheduled !== null) cancel(scheduled);
    if (sweep !== null) cancel(sweep);
    done({ end });
  }

  // Observe the document and each open shadow root not yet observed (nested ones included).
  function observeAll() {
    if (!observer) return;
    const options = { childList: true, subtree: true, characterData: true, attributes: true };
    if (!observed.has(document)) {
      observed.add(document);
      observer.observe(document, options);
    }
    const roots = [document];
    for (let i = 0; i < roots.length; i++) {
      for (const el of roots[i].querySelectorAll('*')) {
        const shadow = el.shadowRoot;
        if (!shadow) continue;
        roots.push(shadow);
        if (!observed.has(shadow)) {
          observed.add(shadow);
          observer.observe(shadow, options);
        }
      }
    }
  }

  function check() {
    scheduled = null;
    if (finished) return;
    if (window[DOC] !== opts.doc) {
      finish('gone');
      return;
    }
    const begin = performance.now();
    lastCheck = begin;
    // 'holds' when the condition holds, 'frames' when the frames decide, else null.
    let decided = null;
    try {
      const found = glTextPresent({ query: opts.query });
      // The text in this document: present holds, absent cannot hold whatever the frames show.
      // Not in it: the frames decide when the document shows any.
      if (found) decided = opts.present ? 'holds' : null;
      else if (glFramesHere().frames.length > 0) decided = 'frames';
      else decided = opts.present ? null : 'holds';
      observeAll();
    } catch (_) {
      finish('failed');
      return;
    }
    cost = performance.now() - begin;
    const wasFirst = first;
    first = false;
    if (decided === 'holds') finish(wasFirst ? 'held' : 'became');
    else if (decided === 'frames') finish('frames');
    else if (performance.now() - started >= opts.within) finish('ran_out');
  }

  // A check soon after a change, no sooner than the throttle allows.
  function soon() {
    if (finished || scheduled !== null) return;
    const gap = Math.max(opts.throttle, 2 * cost);
    const wait = Math.max(0, lastCheck + gap - performance.now());
    scheduled = timer(check, wait);
  }

  function sweeping() {
    if (finished) return;
    if (scheduled === null) check();
    if (!finished) sweep = timer(sweeping, opts.sweep);
  }

  if (typeof MutationObserver === 'function') observer = new MutationObserver(soon);
  check();
  if (finished) return;
  sweep = timer(sweeping, opts.sweep);
  timer(() => {
    if (finished) return;
    if (scheduled !== null) {
      cancel(scheduled);
      scheduled = null;
    }
    check();
    finish('ran_out');
  }, Math.max(0, opts.within - (performance.now() - started)));
})
