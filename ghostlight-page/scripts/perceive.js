// Ghostlight perception: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0], arguments[1]);` in ONE document. Element references are valid
// only in their own frame, so the adapter runs one pass per same-origin frame (switching into
// it) and this script never descends into frames: it lists them for the adapter instead.
//
// opts = {mode, max, maxDepth, query, controlsOnly, nameMax, textMax} (forms: forms.js's too)
//   mode 'controls'  interactive elements
//        'forms'     form controls with their form data `f` (forms.js, prepended)
//        'structure' landmarks, headings, lists, tables, images, dialogs… (non-controls)
//        'all'       both
//        'document'  a structure-only tree under `root` (or the document), with depths; the
//                    root itself is depth 0, nodes nested in k structure nodes below it k + 1;
//                    nodes deeper than maxDepth are left out (with their subtrees)
//        'find'      controls whose name or visible text contains `query` (case-insensitive,
//                    whitespace-normalized), plus (unless controlsOnly) the smallest visible
//                    non-control elements whose text contains it
//        'focus'     the focused element of this document (descending open shadow roots), or
//                    the focused iframe as `focusFrame` for the adapter to enter
//   max      at most this many items (in walk order: document order, an open shadow root's
//            content before the host's light children)
// root = the subtree root element (document mode) or null.
//
// Returns {items, frames, truncated, focusFrame} (and, in focus mode, url: this document's)
//   item  = {e: element, r: role token, n: name|null, s: [state], c: credential class|null,
//            k: control?, t: visible text|null (only when it differs from the name), d: depth|null,
//            f: forms mode only}
//   frame = {e: iframe element, at: how many items precede it, d: depth offset} for each
//           visible iframe, of any origin
//
// Hidden content (glVisible) and subtrees outside the accessibility tree (glAriaHidden) are
// left out. Roles, the control flag and accessible names are dom.js's (glRole, glIsControl,
// glName; prepended), the ones action receipts report: editable values are never read. In find
// mode an element the page named with aria-label or aria-labelledby matches by that name even
// without a role.
(function glPerceive(opts, root) {
  'use strict';
  const MODE = String(opts.mode);
  const MAX = Math.max(0, Number(opts.max) | 0);
  const MAX_DEPTH = Math.max(0, Number(opts.maxDepth) | 0);
  const NAME_MAX = Math.max(1, Number(opts.nameMax) | 0);
  const TEXT_MAX = Math.max(1, Number(opts.textMax) | 0);
  const CONTROLS_ONLY = opts.controlsOnly === true;

  const QUERY = glSquash(opts.query).toLowerCase();
  // A walk that runs longer than this stops where it is and says it was cut short (a page of
  // hundreds of thousands of elements would otherwise hold the browser past any call's bound).
  const BUDGET_MS = 4000;
  const STARTED = performance.now();
  let checks = 0;
  const overBudget = () => (++checks & 255) === 0 && performance.now() - STARTED > BUDGET_MS;

  // Named by the page itself (aria-label or aria-labelledby): find matches such an element by
  // its name even without a role.
  function hasAriaLabel(el) {
    const label = el.getAttribute('aria-label');
    return !!((label && label.trim()) || el.hasAttribute('aria-labelledby'));
  }

  // Landmarks, headings, lists, tables, images… (listed by the structure scopes).
  /** Whether `el`'s own text or naming attributes mention QUERY, or its name comes from
   * elsewhere (so only a full description can tell). */
  const mayName = (el) => {
    if (QUERY === '') return true;
    if (el.localName === 'input' || el.hasAttribute('aria-labelledby') || (el.labels && el.labels.length > 0)) return true;
    // Names that come from descendants' attributes (an image's `alt` in a link).
    if (el.querySelector('[alt],[aria-label],[aria-labelledby],[title]')) return true;
    const own = [el.textContent, el.getAttribute('aria-label'), el.getAttribute('title'),
      el.getAttribute('alt'), el.getAttribute('placeholder'), el.getAttribute('value'),
      el.getAttribute('aria-description')];
    return glSquash(own.filter((part) => part).join(' ')).toLowerCase().includes(QUERY);
  };
  const STRUCTURE = new Set(['banner', 'navigation', 'main', 'complementary', 'contentinfo',
    'region', 'form', 'search', 'heading', 'list', 'table', 'grid', 'treegrid', 'img', 'figure',
    'dialog', 'alertdialog', 'article', 'tablist', 'menu', 'menubar', 'toolbar', 'tree']);

  // ---- credential classes ------------------------------------------------------------------
  const NOT_TEXT = new Set(['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file',
    'hidden', 'range', 'color', 'date', 'datetime-local', 'month', 'week', 'time']);
  const AC_OTP = /(^|\s)one-time-code(\s|$)/;
  const AC_CARD = /(^|\s)cc-(number|csc|exp|exp-month|exp-year)(\s|$)/;
  const AC_PASSWORD = /(^|\s)(current|new)-password(\s|$)/;
  const HINT_OTP = /otp|one.?time|totp|2fa|mfa|verification.?code/;
  const HINT_CARD = /cvv|cvc|(^|[^a-z])csc([^a-z]|$)|card.?(number|num|no([^a-z]|$))|cc.?(num|csc|cvv|exp)|security.?code/;
  const HINT_PASSWORD = /pass(word|wd|code|phrase)|(^|[^a-z])pass([^a-z]|$)|(^|[^a-z])pin([^a-z]|$)|secret|token/;

  function credentialOf(el, name) {
    const tag = el.localName;
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'password') return 'password';
      if (NOT_TEXT.has(type)) return null;
    } else if (tag !== 'textarea' && !el.isContentEditable) {
      return null;
    }
    const autocomplete = (el.getAttribute('autocomplete') || '').toLowerCase();
    if (AC_OTP.test(autocomplete)) return 'one_time_code';
    if (AC_CARD.test(autocomplete)) return 'payment_card';
    if (AC_PASSWORD.test(autocomplete)) return 'password';
    const hay = [el.getAttribute('name'), el.id, name, el.getAttribute('aria-label'),
      el.getAttribute('placeholder')].join(' ').toLowerCase();
    if (HINT_OTP.test(hay)) return 'one_time_code';
    if (HINT_CARD.test(hay)) return 'payment_card';
    if (HINT_PASSWORD.test(hay)) return 'password';
    return null;
  }

  // ---- states ------------------------------------------------------------------------------
  function deepActive(doc) {
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  }
  const FOCUSED = deepActive(document);

  function matches(el, selector) {
    try { return el.matches(selector); } catch (_) { return false; }
  }

  function statesOf(el) {
    const states = [];
    const aria = (name) => (el.getAttribute(name) || '').toLowerCase();
    const tag = el.localName;
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    if (matches(el, ':disabled') || aria('aria-disabled') === 'true') states.push('disabled');
    if (((type === 'checkbox' || type === 'radio') && el.checked) || aria('aria-checked') === 'true') {
      states.push('checked');
    }
    if ((tag === 'option' && el.selected) || aria('aria-selected') === 'true') states.push('selected');
    const details = tag === 'summary' ? el.parentElement : null;
    if (aria('aria-expanded') === 'true' || (details && details.localName === 'details' && details.open)) {
      states.push('expanded');
    }
    if (el === FOCUSED) states.push('focused');
    if (el.required === true || aria('aria-required') === 'true') states.push('required');
    const invalid = aria('aria-invalid');
    if ((invalid && invalid !== 'false') || matches(el, ':user-invalid')) states.push('invalid');
    return states;
  }

  // ---- items -------------------------------------------------------------------------------
  function describe(el, role, control, depth) {
    const name = glName(el, role, NAME_MAX);
    let text = null;
    if (!glEditable(el, role) && (control || !role || GL_NAME_FROM_CONTENT.has(role) || MODE === 'find')) {
      const own = glContentText(el, TEXT_MAX);
      if (own && own !== name) text = own;
    }
    const item = {
      e: el,
      r: role || 'generic',
      n: name,
      s: statesOf(el),
      c: credentialOf(el, name),
      k: control,
      t: text,
      d: depth,
    };
    if (MODE === 'forms') item.f = glFormOf(el, role, opts);
    return item;
  }

  const result = { items: [], frames: [], truncated: false, focusFrame: null };

  if (MODE === 'focus') {
    result.url = glAuthorityUrl(document);
    const active = FOCUSED;
    if (!active || active === document.body || active === document.documentElement) return result;
    if (active.localName === 'iframe' || active.localName === 'frame') {
      result.focusFrame = active;
      return result;
    }
    const role = glRole(active);
    result.items.push(describe(active, role, glIsControl(active, role), null));
    return result;
  }

  // ---- the walk ----------------------------------------------------------------------------
  const found = []; // {item, seq}
  const frames = []; // {el, seq, d}
  const shadowRoots = [];
  const seqOf = MODE === 'find' ? new Map() : null;
  let seq = 0;
  const stack = []; // flat pairs: element, parent depth
  const pushChildren = (parent, depth) => {
    const kids = parent.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i], depth);
  };
  const pushTree = (el, depth) => {
    // Pushed last, popped first: an open shadow root's content comes before light children.
    pushChildren(el, depth);
    if (el.shadowRoot) {
      shadowRoots.push(el.shadowRoot);
      pushChildren(el.shadowRoot, depth);
    }
  };
  const wants = (item) => {
    if (MODE !== 'find') return true;
    const name = (item.n || '').toLowerCase();
    const text = (item.t || '').toLowerCase();
    return QUERY !== '' && (name.includes(QUERY) || text.includes(QUERY));
  };
  const taken = new Set();
  // Add an item unless the cap is reached; answers false when the walk must stop.
  const add = (item, at) => {
    if (found.length >= MAX) {
      result.truncated = true;
      return false;
    }
    taken.add(item.e);
    found.push({ item, seq: at });
    return true;
  };

  let stopped = false;
  if (root) {
    if (MODE === 'document' && glVisible(root)) {
      const role = glRole(root);
      stopped = !add(describe(root, role, glIsControl(root, role), 0), seq);
    }
    seq++;
    if (!stopped) pushTree(root, 0);
  } else {
    pushChildren(document, 0);
  }

  while (!stopped && stack.length) {
    if (overBudget()) {
      result.truncated = true;
      break;
    }
    const depth = stack.pop();
    const el = stack.pop();
    const at = seq++;
    if (seqOf) seqOf.set(el, at);
    // Outside the accessibility tree, with everything under it.
    if (glAriaHidden(el)) continue;
    const tag = el.localName;
    if (tag === 'iframe' || tag === 'frame') {
      // Every visible frame, whatever its origin: the adapter switches into it and checks
      // its document against the call's gate before perceiving it.
      if (glVisible(el)) frames.push({ el, seq: at, d: depth });
      continue;
    }
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'head' || tag === 'noscript') continue;
    const role = glRole(el);
    const control = glIsControl(el, role);
    const structure = !control && role != null && STRUCTURE.has(role);
    let childDepth = depth;
    let take = false;
    switch (MODE) {
      case 'controls': take = control; break;
      case 'structure': take = structure; break;
      case 'all': take = control || structure; break;
      case 'forms': take = control && glIsFormControl(el, role); break;
      case 'document':
        if (structure) {
          childDepth = depth + 1;
          if (childDepth > MAX_DEPTH) continue;
          take = true;
        }
        break;
      case 'find': take = control || (!CONTROLS_ONLY && hasAriaLabel(el)); break;
      default: take = false;
    }
    // Find: a control none of whose name sources mentions the text is never described (the
    // expensive part), unless its name comes from elsewhere (labels, aria-labelledby).
    if (take && MODE === 'find' && !mayName(el)) take = false;
    if (take && glVisible(el)) {
      const item = describe(el, role, control, MODE === 'document' ? childDepth : null);
      if (wants(item) && !add(item, at)) break;
    }
    pushTree(el, childDepth);
  }

  // ---- find: the smallest visible non-control elements containing the text ---------------
  if (MODE === 'find' && !CONTROLS_ONLY && QUERY !== '') {
    // Runs after a truncated walk too: elements the walk never reached sort last and are cut.
    // Never descended into; and never answered (text spread over the whole page).
    const SKIP = new Set(['script', 'style', 'template', 'head', 'noscript', 'title', 'input',
      'textarea', 'select', 'option', 'iframe', 'frame', 'svg']);
    const WHOLE_PAGE = new Set(['html', 'body']);
    // An element's text content without subtrees marked aria-hidden (no layout needed).
    const anyHidden = [document].concat(shadowRoots).some((tree) => tree.querySelector(GL_OUT_OF_TREE));
    const contentOf = (el) => {
      if (!anyHidden) return el.textContent;
      const parts = [];
      const skipHidden = { acceptNode: (n) => (glAriaHidden(n) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) };
      const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, skipHidden);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.nodeType === 3) parts.push(n.data);
      return parts.join('');
    };
    const contains = (el) => glSquash(contentOf(el)).toLowerCase().includes(QUERY);
    // Inside a control, or inside an element the walk already answered by its name.
    const insideControl = (el) => {
      for (let node = el; node; ) {
        if (node.nodeType === 1 && (taken.has(node) || glIsControl(node, glRole(node)))) return true;
        if (node.parentElement) node = node.parentElement;
        else { const top = node.getRootNode(); node = top && top.host ? top.host : null; }
      }
      return false;
    };
    const texts = [];
    const trees = [document].concat(shadowRoots);
    for (const tree of trees) {
      const pending = [];
      const kids = tree === document ? [document.documentElement] : Array.from(tree.children);
      for (const kid of kids) if (kid && !glAriaHidden(kid) && contains(kid)) pending.push(kid);
      while (pending.length) {
        if (overBudget()) {
          result.truncated = true;
          break;
        }
        const el = pending.pop();
        let deeper = false;
        for (const kid of el.children) {
          if (!SKIP.has(kid.localName) && !glAriaHidden(kid) && contains(kid)) { deeper = true; pending.push(kid); }
        }
        if (deeper || SKIP.has(el.localName) || WHOLE_PAGE.has(el.localName) || el.isContentEditable) continue;
        if (insideControl(el) || !glVisible(el)) continue;
        texts.push(el);
      }
    }
    for (const el of texts) {
      const role = glRole(el);
      const item = describe(el, role, false, null);
      found.push({ item, seq: seqOf.has(el) ? seqOf.get(el) : Number.MAX_SAFE_INTEGER });
    }
    found.sort((a, b) => a.seq - b.seq);
    if (found.length > MAX) {
      found.length = MAX;
      result.truncated = true;
    }
  }

  result.items = found.map((f) => f.item);
  for (const frame of frames) {
    let before = 0;
    while (before < found.length && found[before].seq < frame.seq) before++;
    result.frames.push({ e: frame.el, at: before, d: frame.d });
  }
  return result;
})
