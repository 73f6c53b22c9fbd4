// GENERATED from ghostlight-webdriver/src/scripts/*.js and ghostlight-extension/src/page_api.js
// by ghostlight-extension/src/page.rs: do not edit. Regenerate with
// `GHOSTLIGHT_BLESS=1 cargo test -p ghostlight-extension --lib page`.
(() => {
'use strict';
const GL_KEY = Symbol.for('ghostlight.page');
if (Object.prototype.hasOwnProperty.call(globalThis, GL_KEY)) return;
const GL_GENERIC_NAME_CHARS = 80;
const GL_LIMITS = Object.freeze({"documentMaxDepth":64,"maxNodes":50000,"minArticle":280,"minBlock":25,"nameMax":160,"perceiveMax":5000,"queryMax":1000,"readMax":200000,"textMax":200});
// Ghostlight's one DOM semantics: what is shown, what role an element has and what it is
// called. Prepended (after GL_GENERIC_NAME_CHARS, which the adapter defines from core's name
// bound) to every script that decides whether an element is shown, reads shown text, or names
// an element: perceive.js, read_text.js, text_present.js, element_present.js, frames_here.js,
// and every input script (see `with_dom` in ops/mod.rs). Function declarations local to one
// Execute Script body: nothing is left on the page. Reads only; every walk is bounded.
//
// Shown:
// - glVisible(el): whether el is rendered for a person: CSS-visible (checkVisibility with
//   visibility checked, or the computed style where checkVisibility is missing), not inside
//   an `inert` subtree, and with at least one client rect of non-zero width or height.
//   Off-screen and scrolled-away elements are visible (they are in the page; a scroll shows
//   them); opacity is not considered (a transparent control still takes clicks).
// - glAriaHidden(el): whether el is marked aria-hidden="true" or inert (such an element and
//   its subtree are not in the accessibility tree, so Ghostlight neither lists nor reads them).
// - glShownText(el, skip): the rendered text of el (its innerText) without the text of
//   subtrees matching `skip` (default: those outside the accessibility tree). When el holds no
//   such subtree this is exactly innerText; otherwise only the elements on the way to a
//   skipped subtree are walked, every other child contributes its own innerText, and
//   block-level elements keep their line breaks.
//
// Two uses, one semantics: perception, presence and pointer targets ask glVisible (a control
// must have a box to be acted on); text asks glShownText, which follows the accessibility tree
// (CSS-hidden content is not rendered text, aria-hidden and inert subtrees are left out, but a
// zero-size box's clipped text stays, as screen readers read it).
//
// Roles and names (perception lists them, action receipts report them: the same function
// answers both, so what a model perceives is what a click says it clicked):
// - glRole(el): the explicit role (the first token of `role`, unless presentation/none) or the
//   implicit one (HTML-AAM: links, buttons, fields, landmarks, headings, lists, tables…), an
//   editing host's `textbox`, or null (generic). Core narrows it to its closed set.
// - glIsControl(el, role): interactive: an interactive role, an editing host, a draggable
//   element or a focusable one (tabindex ≥ 0).
// - glName(el, role, cap): the accessible name, never an editable value, in this order:
//   aria-labelledby (each referenced element's aria-label, else its shown text, hidden
//   referenced elements included), aria-label, labels (their shown text without nested
//   fields), a button input's value (Submit/Reset by default), an image input's alt (Submit),
//   an image's alt, a fieldset's legend, a table's caption, a figure's figcaption, content for
//   roles named by their content (and a generic element's text when it is short: a
//   container's text is its content, not its name; a child image's alt or aria-label when
//   there is no text), title, placeholder. Cut to `cap` UTF-16 units.
// - glSummary(el, cap): {role, name} of el, as action receipts carry it.

const GL_SHOWN_MAX_ELEMENTS = 20000;
// Subtrees outside the accessibility tree: aria-hidden and inert.
const GL_OUT_OF_TREE = '[aria-hidden="true"],[inert]';
// Form fields, whose values are never names or text of their container.
const GL_FIELDS = 'input,select,textarea,[contenteditable]:not([contenteditable="false"])';
// Element ids read from one aria-labelledby.
const GL_MAX_LABEL_IDS = 16;
// Label elements read for one control.
const GL_MAX_LABELS = 8;
// Roles a person interacts with.
const GL_INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'textbox',
  'searchbox', 'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'treeitem']);
// Roles named by their content (WAI-ARIA "name from content").
const GL_NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'heading', 'cell', 'gridcell',
  'columnheader', 'rowheader', 'row', 'tooltip']);
// Roles whose content is a value the user edits.
const GL_EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);
// Sectioning elements inside which header and footer are no landmarks.
const GL_SCOPING = 'article,aside,main,nav,section';

// ---- shown ----------------------------------------------------------------------------------

function glVisible(el) {
  if (!el || el.nodeType !== 1) return false;
  if (typeof el.checkVisibility === 'function') {
    if (!el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true })) return false;
  } else {
    const view = el.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(el) : null;
    if (!style || style.display === 'none' || style.visibility === 'hidden') return false;
  }
  if (typeof el.closest === 'function' && el.closest('[inert]')) return false;
  const rects = el.getClientRects();
  for (let i = 0; i < rects.length; i++) {
    if (rects[i].width > 0 || rects[i].height > 0) return true;
  }
  return false;
}

function glAriaHidden(el) {
  return !!el && el.nodeType === 1 && (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert'));
}

function glShownText(el, skip) {
  if (!el) return '';
  const leave = skip || GL_OUT_OF_TREE;
  const raw = (node) => (node.innerText !== undefined ? node.innerText : node.textContent) || '';
  if (glAriaHidden(el)) return '';
  if (!el.querySelector(leave)) return raw(el);
  const rendered = (node) => typeof node.checkVisibility !== 'function' || node.checkVisibility();
  const block = (node) => {
    const view = node.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(node) : null;
    return !!style && !style.display.startsWith('inline') && style.display !== 'contents';
  };
  const parts = [];
  const stack = [el];
  let elements = 0;
  while (stack.length && elements < GL_SHOWN_MAX_ELEMENTS) {
    const node = stack.pop();
    if (typeof node === 'string') { parts.push(node); continue; }
    if (node.nodeType === 3) { parts.push(node.data.replace(/\s+/g, ' ')); continue; }
    if (node.nodeType !== 1 || glAriaHidden(node)) continue;
    if (node !== el && node.matches(leave)) continue;
    elements++;
    const tag = node.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    if (node !== el && !rendered(node)) continue;
    if (node !== el && !node.querySelector(leave)) {
      const text = raw(node);
      parts.push(block(node) ? '\n' + text + '\n' : text);
      continue;
    }
    if (tag === 'br') { parts.push('\n'); continue; }
    const breaks = node !== el && block(node);
    if (breaks) stack.push('\n');
    for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
    if (breaks) stack.push('\n');
  }
  return parts.join('');
}

// ---- text helpers ---------------------------------------------------------------------------

// Cut to at most `max` UTF-16 units without splitting a surrogate pair.
function glCut(s, max) {
  if (s.length <= max) return s;
  let end = max;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return s.slice(0, end);
}

// Whitespace runs become one space; trimmed.
function glSquash(s) {
  return (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();
}

function glClean(s, max) {
  return glCut(glSquash(s), max);
}

// The shown text of el without nested fields (their values or options), squashed and cut.
function glContentText(el, max) {
  return glClean(glShownText(el, GL_OUT_OF_TREE + ',' + GL_FIELDS), max);
}

// ---- roles ----------------------------------------------------------------------------------

// The first token of the role attribute, lowercased ('' when there is none).
function glExplicitRole(el) {
  return (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
}

// Named by the page itself (aria-label, aria-labelledby or title).
function glHasAuthorName(el) {
  const label = el.getAttribute('aria-label');
  return !!((label && label.trim()) || el.hasAttribute('aria-labelledby') || el.hasAttribute('title'));
}

// The topmost element of a contenteditable region (its editing host).
function glEditableRoot(el) {
  return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
}

function glInputRole(el) {
  switch ((el.getAttribute('type') || 'text').toLowerCase()) {
    case 'hidden': return null;
    case 'button': case 'submit': case 'reset': case 'image': case 'file': case 'color':
      return 'button';
    case 'checkbox': return 'checkbox';
    case 'radio': return 'radio';
    case 'range': return 'slider';
    case 'number': return 'spinbutton';
    case 'search': return el.list ? 'combobox' : 'searchbox';
    default: return el.list ? 'combobox' : 'textbox';
  }
}

function glImplicitRole(el) {
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'button': case 'summary': return 'button';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'textarea': return 'textbox';
    case 'input': return glInputRole(el);
    case 'option': {
      // An option of a drop-down is part of its combobox's value, not a target of its own.
      const select = el.closest('select');
      return select && (select.multiple || select.size > 1) ? 'option' : null;
    }
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'img': return el.getAttribute('alt') === '' ? null : 'img';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'aside': return 'complementary';
    case 'header': return el.parentElement && el.parentElement.closest(GL_SCOPING) ? null : 'banner';
    case 'footer': return el.parentElement && el.parentElement.closest(GL_SCOPING) ? null : 'contentinfo';
    case 'section': return glHasAuthorName(el) ? 'region' : null;
    case 'form': return 'form';
    case 'search': return 'search';
    case 'ul': case 'ol': case 'menu': return 'list';
    case 'li': return 'listitem';
    case 'table': return 'table';
    case 'dialog': return 'dialog';
    case 'article': return 'article';
    case 'figure': return 'figure';
    case 'p': return 'paragraph';
    case 'td': return 'cell';
    case 'th': return (el.getAttribute('scope') || '').toLowerCase() === 'row' ? 'rowheader' : 'columnheader';
    case 'blockquote': return 'blockquote';
    case 'caption': return 'caption';
    case 'dt': return 'term';
    case 'dd': return 'definition';
    case 'fieldset': case 'details': return 'group';
    default: return null;
  }
}

function glRole(el) {
  const explicit = glExplicitRole(el);
  if (explicit && explicit !== 'presentation' && explicit !== 'none') return explicit;
  const implicit = glImplicitRole(el);
  if (implicit) return implicit;
  if (glEditableRoot(el)) return 'textbox';
  return null;
}

function glIsControl(el, role) {
  if (role && GL_INTERACTIVE_ROLES.has(role)) return true;
  if (glEditableRoot(el)) return true;
  if (el.getAttribute('draggable') === 'true') return true;
  return el.hasAttribute('tabindex') && el.tabIndex >= 0 && el.localName !== 'iframe';
}

// Whether el holds a value the user edits (its text is never its name).
function glEditable(el, role) {
  const tag = el.localName;
  return tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable ||
    (role != null && GL_EDITABLE_ROLES.has(role));
}

// ---- names ----------------------------------------------------------------------------------

// The alt of a child image, or the aria-label of a child, for elements without text.
function glChildAltName(el, cap) {
  const inner = el.querySelector('img[alt]:not([alt=""]),[aria-label]');
  if (!inner) return '';
  return glClean(inner.getAttribute('aria-label') || inner.getAttribute('alt'), cap);
}

// The text of the direct child matching `selector` (legend, caption, figcaption), or ''.
function glChildText(el, selector, cap) {
  const child = el.querySelector(':scope > ' + selector);
  return child ? glContentText(child, cap) : '';
}

function glName(el, role, cap) {
  const labelledBy = (el.getAttribute('aria-labelledby') || '').trim();
  if (labelledBy) {
    const scope = el.getRootNode();
    const parts = [];
    for (const id of labelledBy.split(/\s+/).slice(0, GL_MAX_LABEL_IDS)) {
      const target = scope && scope.getElementById ? scope.getElementById(id) : null;
      if (!target) continue;
      const label = glClean(target.getAttribute('aria-label'), cap);
      const text = label || (target === el ? '' : glContentText(target, cap));
      if (text) parts.push(text);
    }
    const joined = glClean(parts.join(' '), cap);
    if (joined) return joined;
  }
  const ariaLabel = glClean(el.getAttribute('aria-label'), cap);
  if (ariaLabel) return ariaLabel;
  if (el.labels && el.labels.length) {
    const labels = Array.from(el.labels).slice(0, GL_MAX_LABELS);
    const text = glClean(labels.map((label) => glContentText(label, cap)).join(' '), cap);
    if (text) return text;
  }
  const tag = el.localName;
  if (tag === 'input') {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (type === 'button' || type === 'submit' || type === 'reset') {
      // A button's value is its label, not something the user edits.
      const value = glClean(el.getAttribute('value'), cap);
      if (value) return value;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    if (type === 'image') return glClean(el.getAttribute('alt'), cap) || 'Submit';
  }
  let own = '';
  if (tag === 'img' || tag === 'area') own = glClean(el.getAttribute('alt'), cap);
  else if (tag === 'fieldset') own = glChildText(el, 'legend', cap);
  else if (tag === 'table') own = glChildText(el, 'caption', cap);
  else if (tag === 'figure') own = glChildText(el, 'figcaption', cap);
  if (own) return own;
  if (!glEditable(el, role) && tag !== 'body' && tag !== 'html') {
    if (role && GL_NAME_FROM_CONTENT.has(role)) {
      const text = glContentText(el, cap) || glChildAltName(el, cap);
      if (text) return text;
    } else if (!role) {
      // A generic element's text names it only when it is short.
      const text = glContentText(el, GL_GENERIC_NAME_CHARS + 1);
      if (text.length <= GL_GENERIC_NAME_CHARS) {
        const name = text || glChildAltName(el, cap);
        if (name) return glCut(name, cap);
      }
    }
  }
  const title = glClean(el.getAttribute('title'), cap);
  if (title) return title;
  const placeholder = glClean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder'), cap);
  if (placeholder) return placeholder;
  return null;
}

function glSummary(el, cap) {
  const role = glRole(el);
  return { role: role || 'generic', name: glName(el, role, cap) };
}
// The URL a document is governed by (the gate decides it, ops/frames.rs): its own URL, or, for
// a document without an origin of its own (about:blank, about:srcdoc, data:), the origin it
// inherited from the document that created or navigated it: an about: document made by a page
// has that page's origin; a data: document, and any document of an opaque origin (a sandboxed
// frame), has none that could be named, so it answers `data:,`, which the gate refuses
// (unknown means denied). A frame that navigates itself to about:blank keeps the origin it had,
// so a refused frame stays refused.
function glAuthorityUrl(d) {
  const url = String(d.URL);
  if (!/^(about|data):/i.test(url)) return url;
  let origin = 'null';
  try {
    origin = d.defaultView ? String(d.defaultView.origin) : 'null';
  } catch (_) {
    origin = 'null';
  }
  return origin === 'null' || !/^https?:\/\//i.test(origin) ? 'data:,' : `${origin}/`;
}
const glPerceive = // Ghostlight perception: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0], arguments[1]);` in ONE document. Element references are valid
// only in their own frame, so the adapter runs one pass per same-origin frame (switching into
// it) and this script never descends into frames: it lists them for the adapter instead.
//
// opts = {mode, max, maxDepth, query, controlsOnly, nameMax, textMax}
//   mode 'controls'  interactive elements
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
//            k: control?, t: visible text|null (only when it differs from the name), d: depth|null}
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
    return {
      e: el,
      r: role || 'generic',
      n: name,
      s: statesOf(el),
      c: credentialOf(el, name),
      k: control,
      t: text,
      d: depth,
    };
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
});
const glReadText = // Ghostlight text reading: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0], arguments[1]);`. Reads only; never changes the page.
//
// opts = {mode, max, minArticle, minBlock, maxNodes}
//   mode 'article' the main article, without navigation, ads, footers, banners, asides, forms
//                  and hidden content
//        'visible' the visible text of the page (innerText of the body, without subtrees
//                  outside the accessibility tree: glShownText of dom.js, prepended)
//        'auto'    the article when it has at least `minArticle` characters, else visible
//   max  at most this many UTF-16 units of normalized text (more existing sets `truncated`)
// target = an element to read instead of the page (its visible text), or null.
//
// Returns {text, truncated, source: 'article'|'visible'|'target'}.
//
// Whitespace is normalized: each line's runs of whitespace become one space, lines are
// trimmed, and empty lines are dropped (lines are kept: they carry paragraph breaks).
//
// The article heuristic (a small Readability):
//  1. Every text node's length (at most `maxNodes` nodes) is credited to its *block*: the
//     nearest ancestor that is not an inline element. A block with at least `minBlock`
//     characters, visible and outside noise, is a paragraph.
//  2. Each paragraph scores its length for its parent and half of it for its grandparent.
//  3. The best-scoring element wins; when it lies inside an `article`/`main` element (or the
//     ARIA roles), that semantic element is the article instead (it keeps the headline).
//     Without any paragraph, a sole visible `article`, else `main`, is used; else nothing.
//  4. The article's text is collected from the live DOM, skipping noise (nav, aside, footer,
//     form, page banners, ARIA navigation/banner/contentinfo/complementary/search/form roles,
//     elements whose class or id names an ad, sponsor, promo, share or cookie box, form
//     fields, buttons, scripts) and hidden elements (glVisible of dom.js).
(function glReadText(opts, target) {
  'use strict';
  const MAX = Math.max(0, Number(opts.max) | 0);
  const MIN_ARTICLE = Math.max(0, Number(opts.minArticle) | 0);
  const MIN_BLOCK = Math.max(1, Number(opts.minBlock) | 0);
  const MAX_NODES = Math.max(1, Number(opts.maxNodes) | 0);

  const normalize = (raw) => String(raw == null ? '' : raw)
    .split(/\r\n|\r|\n|\u2028|\u2029/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  const bounded = (raw, source) => {
    const text = normalize(raw);
    return { text: glCut(text, MAX), truncated: text.length > MAX, source };
  };

  const FIELDS = new Set(['input', 'textarea', 'select']);

  if (target) {
    if (FIELDS.has(target.localName) || !target.isConnected || !glVisible(target)) {
      return { text: '', truncated: false, source: 'target' };
    }
    return bounded(glShownText(target), 'target');
  }

  const body = document.body || document.documentElement;
  const visibleText = () => bounded(body ? glShownText(body) : '', 'visible');
  if (opts.mode === 'visible') return visibleText();

  // ---- noise -------------------------------------------------------------------------------
  const NOISE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'script', 'style', 'noscript',
    'template', 'button', 'select', 'textarea', 'input', 'iframe', 'frame', 'object', 'embed',
    'svg', 'canvas', 'dialog', 'menu', 'head']);
  const NOISE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search',
    'form', 'dialog', 'alertdialog', 'menu', 'menubar', 'toolbar']);
  const NOISE_NAMES = /(^|[\s_-])(ad|ads|advert|adverts|advertisement|advertising|sponsor|sponsored|promo|promoted|promotion|share|sharing|social|newsletter|cookie|cookies|consent|related|outbrain|taboola)([\s_-]|$)/i;
  const SCOPING = 'article,aside,main,nav,section';

  function isNoise(el) {
    const tag = el.localName;
    if (NOISE_TAGS.has(tag)) return true;
    if (tag === 'header' && !(el.parentElement && el.parentElement.closest(SCOPING))) return true;
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    if (role && NOISE_ROLES.has(role.split(/\s+/)[0])) return true;
    const marks = (typeof el.className === 'string' ? el.className : '') + ' ' + (el.id || '');
    return marks.trim() !== '' && NOISE_NAMES.test(marks);
  }
  function inNoise(el, stop) {
    for (let node = el; node && node !== stop; node = node.parentElement) {
      if (isNoise(node)) return true;
    }
    return false;
  }

  // ---- choose the article root -------------------------------------------------------------
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em',
    'font', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub',
    'sup', 'time', 'u', 'var', 'wbr', 'br', 'del', 'ins']);
  const SEMANTIC = 'article,main,[role="article"],[role="main"]';

  function chooseRoot() {
    if (!document.body) return null;
    const blockLength = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let nodes = 0;
    for (let node = walker.nextNode(); node && nodes < MAX_NODES; node = walker.nextNode()) {
      nodes++;
      const length = node.data.replace(/\s+/g, ' ').trim().length;
      if (length === 0) continue;
      let block = node.parentElement;
      while (block && INLINE.has(block.localName) && block.parentElement) block = block.parentElement;
      if (!block) continue;
      blockLength.set(block, (blockLength.get(block) || 0) + length);
    }
    const scores = new Map();
    for (const [block, length] of blockLength) {
      if (length < MIN_BLOCK || block === document.body) continue;
      if (inNoise(block, null) || !glVisible(block)) continue;
      const parent = block.parentElement;
      if (parent) scores.set(parent, (scores.get(parent) || 0) + length);
      const grand = parent ? parent.parentElement : null;
      if (grand) scores.set(grand, (scores.get(grand) || 0) + length / 2);
    }
    let best = null;
    let bestScore = 0;
    for (const [el, score] of scores) {
      if (score > bestScore) { best = el; bestScore = score; }
    }
    if (best) {
      const semantic = best.closest(SEMANTIC);
      return semantic || best;
    }
    const candidates = Array.from(document.querySelectorAll(SEMANTIC)).filter(
      (el) => glVisible(el) && !inNoise(el, null));
    const articles = candidates.filter((el) => el.matches('article,[role="article"]'));
    if (articles.length === 1) return articles[0];
    const mains = candidates.filter((el) => el.matches('main,[role="main"]'));
    return mains.length === 1 ? mains[0] : null;
  }

  // ---- collect the article's text ----------------------------------------------------------
  const BREAK_AFTER = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'tr', 'table', 'blockquote',
    'pre', 'figure', 'figcaption', 'caption', 'hr', 'br', 'details', 'summary', 'address']);
  const CELL = new Set(['td', 'th']);
  // Enough raw text to fill `max` normalized characters, with room to see that more exists.
  const RAW_LIMIT = MAX * 2 + 1024;

  function collect(rootEl) {
    const parts = [];
    let length = 0;
    const stack = [rootEl];
    while (stack.length && length <= RAW_LIMIT) {
      const node = stack.pop();
      if (typeof node === 'string') {
        parts.push(node);
        continue;
      }
      if (node.nodeType === 3) {
        parts.push(node.data);
        length += node.data.length;
        continue;
      }
      if (node.nodeType !== 1) continue;
      if (node !== rootEl && (isNoise(node) || !glVisible(node))) continue;
      const tag = node.localName;
      if (BREAK_AFTER.has(tag)) stack.push('\n');
      else if (CELL.has(tag)) stack.push(' ');
      const kids = node.childNodes;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      if (BREAK_AFTER.has(tag)) stack.push('\n');
    }
    const text = normalize(parts.join(''));
    const more = stack.some((n) => typeof n !== 'string');
    return { text: glCut(text, MAX), truncated: text.length > MAX || more, source: 'article' };
  }

  const rootEl = chooseRoot();
  const article = rootEl ? collect(rootEl) : { text: '', truncated: false, source: 'article' };
  if (opts.mode === 'article') return article;
  if (article.text.length >= MIN_ARTICLE) return article;
  return visibleText();
});
const glTextPresent = // Ghostlight text presence: one function expression, run through WebDriver "Execute Script" as
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
});
const glElementPresent = // Ghostlight element presence: one function expression, run through WebDriver "Execute Script"
// as `return (FN)(arguments[0]);` in the element's own frame. Reads only.
//
// Answers whether `el` is attached to its document and shown (glVisible of dom.js,
// prepended).
(function glElementPresent(el) {
  'use strict';
  return !!el && el.isConnected && glVisible(el);
});
const glCaptureElement = // Ghostlight capture: where an element sits in the top-level document.
//
// One function expression, run through WebDriver "Execute Script" in the element's own frame
// as `return (fn)(element, scroll)`. With `scroll` true it first scrolls the element into view
// (nearest edge, instantly: Firefox would otherwise scroll smoothly). Answers
// {x, y, width, height, complete}: the element's border box in document CSS pixels of the
// top-level document (its client rect, plus the content-box offset of every same-origin
// iframe on the way up, plus the top-level scroll offsets). `complete` is false when a parent
// document could not be reached (cross-origin), so the offsets are partial. Reads only
// geometry: no page text.
(function glCaptureElement(element, scroll) {
  if (scroll) {
    element.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  }
  const box = element.getBoundingClientRect();
  let x = box.left;
  let y = box.top;
  let w = window;
  let complete = true;
  while (w !== w.top) {
    let frame = null;
    try {
      frame = w.frameElement;
    } catch (e) {
      frame = null;
    }
    if (!frame) {
      complete = false;
      break;
    }
    const outer = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
    x += outer.left + frame.clientLeft + (parseFloat(style.paddingLeft) || 0);
    y += outer.top + frame.clientTop + (parseFloat(style.paddingTop) || 0);
    w = w.parent;
  }
  x += w.scrollX;
  y += w.scrollY;
  return { x: x, y: y, width: box.width, height: box.height, complete: complete };
});
const glCapturePageSize = // Ghostlight capture: the CSS size of the whole scrollable document.
//
// One function expression, run through WebDriver "Execute Script" in the top-level document
// as `return (fn)()`. Answers {width, height}: the scroll size of the document's scrolling
// element (the root element, or the body in quirks mode), which is what a full-page capture
// covers (without the scrollbar). Reads only geometry.
(function glCapturePageSize() {
  const scroller = document.scrollingElement || document.documentElement;
  return { width: scroller.scrollWidth, height: scroller.scrollHeight };
});
function glFramesHere() {
// Frames of this document, for walks through frame documents (ops/frames.rs `visit_frames`):
// the document's own URL, and every visible iframe or frame element of this document (open
// shadow roots included, frame documents not entered) in document order, as WebDriver element
// references the adapter switches into, whatever their origin. Reads only. Bounded by
// MAX_FRAMES and MAX_NODES.
//
// arguments: [] — answers {url, frames: [element]}
const MAX_FRAMES = 32;
const MAX_NODES = 20000;
const frames = [];
const stack = document.documentElement ? [document.documentElement] : [];
let nodes = 0;
while (stack.length && frames.length < MAX_FRAMES && nodes < MAX_NODES) {
  const node = stack.pop();
  nodes += 1;
  // A subtree outside the accessibility tree (aria-hidden, inert): no frame in it is read.
  if (glAriaHidden(node)) continue;
  const tag = node.localName;
  if ((tag === 'iframe' || tag === 'frame') && glVisible(node)) frames.push(node);
  for (let child = node.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  if (node.shadowRoot) {
    for (let child = node.shadowRoot.lastElementChild; child; child = child.previousElementSibling) {
      stack.push(child);
    }
  }
}
return { url: glAuthorityUrl(document), frames };
}
const glPageState = () => null;
// Ghostlight input helpers, prepended to every script under scripts/input/ after dom.js (see
// ops/input/mod.rs). Function declarations local to one Execute Script body: nothing is left
// on the page. Engine-neutral (Chromium and Firefox); every walk is bounded. Roles, names and
// what is shown are dom.js's (glRole, glName, glSummary, glVisible): a receipt names an
// element exactly as perception does.
//
// - glParent(node): the parent in the composed tree (a shadow root answers its host).
// - glInside(outer, node): whether node is outer or inside it, across shadow roots.
// - glDeepHit(doc, x, y): the topmost element at viewport point (x, y) of doc, through open
//   shadow roots and same-origin iframes; glDeepTrace(doc, x, y) also answers the frame
//   documents it entered and the cross-origin frame it stopped at.
// - glArmKeyGuard(key, pinned), glDisarmKeyGuard(key): keep key presses inside one element
//   while the adapter sends them (see the functions).
// - glMeaningful(el): what a person acts on at el: the editing host of editable content, else
//   el's nearest control (glIsControl), else its nearest element a person would name (a role
//   of core's closed set, or an ARIA label); el when there is none.
// - glDraggable(el): el or its nearest ancestor with draggable="true", or null.
// - glDeepActive(doc): the focused element through shadow roots and same-origin iframes, or
//   null when nothing but the body has focus.

// Ancestors visited by one walk.
const GL_MAX_DEPTH = 512;
// Shadow roots and frames crossed by one hit test or focus lookup.
const GL_MAX_HOPS = 32;
// The closed role set core names (anything else is reported as the page spells it).
const GL_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox',
  'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'tab', 'menuitem', 'treeitem', 'heading',
  'img', 'dialog']);

function glParent(node) {
  const parent = node.parentNode;
  if (!parent) return null;
  return parent.nodeType === 11 && parent.host ? parent.host : parent;
}

function glInside(outer, node) {
  for (let n = node, i = 0; n && i < GL_MAX_DEPTH; n = glParent(n), i++) {
    if (n === outer) return true;
  }
  return false;
}

function glDeepHit(doc, x, y) {
  return glDeepTrace(doc, x, y).hit;
}

// The deep hit at viewport point (x, y) of doc, with the documents it went through: `frames`
// lists the URL of each same-origin frame document entered (outermost first), and `cross` is
// {frame, x, y} when the hit stops at a frame this document cannot enter (another origin):
// the frame element and the point inside its content box, for the adapter to follow.
// Whether a nested browsing context's element gives this realm its document (same origin).
function glEnterable(el) {
  try {
    return Boolean(el.contentDocument);
  } catch (_) {
    return false;
  }
}

function glDeepTrace(doc, x, y) {
  let hit = doc.elementFromPoint(x, y);
  let cx = x;
  let cy = y;
  const frames = [];
  let cross = null;
  for (let hop = 0; hit && hop < GL_MAX_HOPS; hop++) {
    if (hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(cx, cy);
      if (inner && inner !== hit && glInside(hit, inner)) {
        hit = inner;
        continue;
      }
    }
    // An <object> or <embed> hosts a document too; one whose document cannot be entered
    // from here (another origin, or an embed) is one whose authority is unknown: refused.
    if ((hit.localName === 'object' || hit.localName === 'embed') && !glEnterable(hit)) {
      frames.push('data:,');
      break;
    }
    if (hit.localName === 'iframe' || hit.localName === 'frame' || hit.localName === 'object') {
      const r = hit.getBoundingClientRect();
      const fx = cx - (r.left + hit.clientLeft);
      const fy = cy - (r.top + hit.clientTop);
      let frameDoc = null;
      try {
        frameDoc = hit.contentDocument;
      } catch (_) {
        frameDoc = null;
      }
      if (!frameDoc) {
        cross = { frame: hit, x: fx, y: fy };
        break;
      }
      const inner = frameDoc.elementFromPoint(fx, fy);
      if (inner) {
        frames.push(glAuthorityUrl(frameDoc));
        hit = inner;
        cx = fx;
        cy = fy;
        continue;
      }
    }
    break;
  }
  return { hit, frames, cross };
}

function glMeaningful(el) {
  let named = null;
  for (let n = el, i = 0; n && n.nodeType === 1 && i < GL_MAX_DEPTH; n = glParent(n), i++) {
    const tag = n.localName;
    if (tag === 'body' || tag === 'html') break;
    if (n.isContentEditable) {
      if (glEditableRoot(n)) return n;
      continue;
    }
    const role = glRole(n);
    if (glIsControl(n, role)) return n;
    if (!named && (GL_ROLES.has(role) || n.hasAttribute('aria-label') || n.hasAttribute('aria-labelledby'))) {
      named = n;
    }
  }
  return named || el;
}

function glDraggable(el) {
  for (let n = el, i = 0; n && n.nodeType === 1 && i < GL_MAX_DEPTH; n = glParent(n), i++) {
    if (n.getAttribute('draggable') === 'true') return n;
  }
  return null;
}

function glDeepActive(doc) {
  let el = doc.activeElement;
  for (let hop = 0; el && hop < GL_MAX_HOPS; hop++) {
    if (el.shadowRoot && el.shadowRoot.activeElement) {
      el = el.shadowRoot.activeElement;
      continue;
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      let inner = null;
      try {
        inner = el.contentDocument ? el.contentDocument.activeElement : null;
      } catch (_) {
        inner = null;
      }
      if (inner) {
        el = inner;
        continue;
      }
    }
    break;
  }
  if (!el || el.localName === 'body' || el.localName === 'html') return null;
  return el;
}

// ---- key guard ----------------------------------------------------------------------------
// While the adapter sends keys for `pinned` (null: the page itself, while no element has
// focus), a key event whose composed path does not include it is cancelled (so it types
// nothing and moves no focus) and counted, and so is every key event after the first such
// one. A blur of the window (focus moved into a child frame, another document) is noted: keys
// sent after it are not seen here. The guard is stored on the window under the adapter's
// nonce `key`, and taken off by glDisarmKeyGuard, which answers the counts.
function glArmKeyGuard(key, pinned) {
  const view = pinned ? pinned.ownerDocument.defaultView : window;
  glDisarmKeyGuard(key, view);
  const doc = view.document;
  const counts = { withheld: 0, seen: 0, left: false, crossed: false };
  const mine = (event) => {
    const path = event.composedPath();
    if (pinned) return path.includes(pinned);
    const first = path[0];
    return first === doc.body || first === doc.documentElement || first === doc || first === view;
  };
  const onKey = (event) => {
    if (event.type === 'keydown') counts.seen += 1;
    if (!counts.left && mine(event)) return;
    counts.left = true;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (event.type === 'keydown') counts.withheld += 1;
  };
  const onBlur = (event) => {
    if (event.target === view) counts.crossed = true;
  };
  const kinds = ['keydown', 'keypress', 'beforeinput', 'keyup'];
  for (const kind of kinds) view.addEventListener(kind, onKey, true);
  view.addEventListener('blur', onBlur, true);
  const off = () => {
    for (const kind of kinds) view.removeEventListener(kind, onKey, true);
    view.removeEventListener('blur', onBlur, true);
  };
  Object.defineProperty(view, key, { value: { counts, off }, configurable: true, enumerable: false });
}

function glDisarmKeyGuard(key, view) {
  const w = view || window;
  const guard = w[key];
  if (!guard) return null;
  guard.off();
  delete w[key];
  return guard.counts;
}
function glInputTarget() {
// Pointer target: where pointer input would land, and whether the target is what is there.
// Runs in the target element's own document (its frame), after lib.js.
//
// arguments: [element | null, point {x, y} | null, options {scroll, check, state, cap}]
// - element: scrolled to the centre of the view (instantly) when options.scroll, then, when
//   options.check, hit tested at its in-view centre point (WebDriver's definition: the centre
//   of the part of its first layout box inside the viewport, floored).
// - point: a viewport point of this document; the element there is described.
// Answers {status, x, y, summary, by, draggable, state, url, frames, cross}: status is
//   'ok'        x, y: the point (viewport of this document); summary: the element hit or
//               targeted; draggable: whether it (or an ancestor) has draggable="true";
//   'covered'   another element is topmost at the target's centre; by: its summary;
//   'nobox'     the element is not shown (glVisible of dom.js: display:none, visibility,
//               inert, no box) or is detached, or its first layout box is empty;
//   'outside'   the point (or the target's centre) is outside the viewport.
// state: the page state (glPageState) when options.state, taken before any input.
// url: this document's URL (the document an element target lives in). For a point: frames,
// the same-origin frame documents the hit entered, and cross, the frame of another origin it
// stopped at with the point inside it (glDeepTrace), for the adapter's gate.
const [target, point, options] = arguments;
const cap = options.cap;
const out = { url: glAuthorityUrl(document) };
if (options.state) out.state = glPageState();
const view = target ? target.ownerDocument.defaultView : window;
const width = view.innerWidth;
const height = view.innerHeight;
if (target) {
  if (!target.isConnected) return Object.assign(out, { status: 'nobox' });
  if (options.scroll) target.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const rects = target.getClientRects();
  if (!glVisible(target) || !rects.length || (rects[0].width === 0 && rects[0].height === 0)) {
    return Object.assign(out, { status: 'nobox' });
  }
  const r = rects[0];
  const left = Math.max(r.left, 0);
  const right = Math.min(r.right, width);
  const top = Math.max(r.top, 0);
  const bottom = Math.min(r.bottom, height);
  if (right <= left || bottom <= top) return Object.assign(out, { status: 'outside' });
  const x = Math.floor((left + right) / 2);
  const y = Math.floor((top + bottom) / 2);
  const hit = glDeepHit(target.ownerDocument, x, y);
  if (!hit) return Object.assign(out, { status: 'outside' });
  // The target itself, something inside it, or a label that forwards to it.
  let label = null;
  for (let n = hit, i = 0; n && n.nodeType === 1 && i < GL_MAX_DEPTH; n = glParent(n), i++) {
    if (n.localName === 'label') {
      label = n;
      break;
    }
  }
  const forwards = label !== null && label.control === target;
  if (options.check && !glInside(target, hit) && !forwards) {
    return Object.assign(out, { status: 'covered', by: glSummary(glMeaningful(hit), cap) });
  }
  return Object.assign(out, {
    status: 'ok', x, y, summary: glSummary(target, cap), draggable: glDraggable(target) !== null,
  });
}
if (!(point.x >= 0 && point.y >= 0 && point.x < width && point.y < height)) {
  return Object.assign(out, { status: 'outside' });
}
const trace = glDeepTrace(document, point.x, point.y);
const hit = trace.hit;
if (!hit) return Object.assign(out, { status: 'outside' });
const cross = trace.cross ? { frame: trace.cross.frame, x: trace.cross.x, y: trace.cross.y } : null;
return Object.assign(out, {
  status: 'ok', x: point.x, y: point.y, summary: cross ? null : glSummary(glMeaningful(hit), cap),
  draggable: glDraggable(hit) !== null, frames: trace.frames, cross,
});
}
function glInputFocus() {
// Keyboard target: focus an element (or find the focused one) before key input, or describe
// the focused element after it. Runs after lib.js.
//
// arguments: [element | null, options {mode, clear, state, cap, guard}]
// mode 'prepare': focus element (when given; file inputs are refused) and check that focus
//   landed on it or inside it; without an element, use the focused element (through shadow
//   roots and same-origin frames). With clear, select the control's whole content so that one
//   Delete key press removes it; `clear` in the answer says whether there was content;
//   `already` whether the element had focus before. With guard (a nonce), arm the key guard
//   on the element (glArmKeyGuard).
// mode 'page': keys for the page itself: refuse ('focused') when an element has focus, else
//   arm the key guard on the page when guard is given.
// mode 'after': describe the focused element, if any.
// Answers {status: 'ok', summary, clear, already, state} or
// {status: 'file' | 'unfocusable' | 'nofocus' | 'focused'}.
// state: the page state (glPageState) when options.state.
const [element, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (options.mode === 'after') {
  const active = glDeepActive(document);
  return Object.assign(out, { status: 'ok', summary: active ? glSummary(active, options.cap) : null });
}
if (options.mode === 'page') {
  if (glDeepActive(document) || (document.activeElement && /^i?frame$/.test(document.activeElement.localName))) {
    return Object.assign(out, { status: 'focused' });
  }
  if (options.guard) glArmKeyGuard(options.guard, null);
  return Object.assign(out, { status: 'ok', summary: null });
}
let target = element;
let already = false;
if (target) {
  if (target.localName === 'input' && target.type === 'file') return Object.assign(out, { status: 'file' });
  already = glInside(target, glDeepActive(target.ownerDocument) || target.ownerDocument.body);
  target.focus();
  const active = glDeepActive(target.ownerDocument);
  if (!active || !glInside(target, active)) return Object.assign(out, { status: 'unfocusable' });
} else {
  target = glDeepActive(document);
  if (!target) return Object.assign(out, { status: 'nofocus' });
}
let clear = false;
if (options.clear) {
  const tag = target.localName;
  if (tag === 'input' || tag === 'textarea') {
    clear = String(target.value).length > 0;
    try {
      target.select();
    } catch (_) {
      clear = false;
    }
  } else {
    let host = target;
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    if (host.isContentEditable) {
      clear = host.textContent.length > 0;
      host.ownerDocument.defaultView.getSelection().selectAllChildren(host);
    }
  }
}
if (options.guard) glArmKeyGuard(options.guard, target);
return Object.assign(out, { status: 'ok', summary: glSummary(target, options.cap), clear, already });
}
function glInputKeyGuard() {
// Take the key guard off (see glArmKeyGuard in lib.js) and answer its counts: {withheld,
// seen, left, crossed}, or {missing: true} when this document holds no guard under the nonce
// (the document changed while keys were sent). Runs after lib.js, in the guarded document.
//
// arguments: [nonce]
const [key] = arguments;
return glDisarmKeyGuard(key) || { missing: true };
}
function glInputFill() {
// Form fill: check every value against its control, then (when asked) set them all. Runs in
// the controls' document, after lib.js.
//
// arguments: [elements[], values[], apply]
// values[i] is {t: 'text', v: string} | {t: 'checked', v: boolean} | {t: 'number', v: number}.
// Every field is checked before anything is set; the first misfit answers
// {status: 'invalid', index, reason} and nothing is touched. With apply, every field is then
// set the way a user's edit shows up to page scripts:
//   - inputs and textareas: focus, the native `value` setter (so frameworks that track the
//     value through an instance setter, like React, see the change), then `input` and
//     `change` events;
//   - selects: focus, select the option, `input` and `change`;
//   - checkboxes, radios, ARIA checkboxes/switches/radios: a click when the state differs;
//   - contenteditable: focus, select its contents, `insertText` (the browser's own editing,
//     with its input events), or the text and an `input` event where that is refused.
// Answers {status: 'ok', filled}.
// Reasons: 'detached', 'control' (not a fillable control), 'disabled', 'readonly', 'kind'
// (the value's type does not fit the control), 'length' (longer than maxlength), 'format'
// (the input's type refuses the text), 'number' (not a number), 'range' (outside min/max or
// off step for a range), 'option' (no option matches), 'option_disabled', 'radio_off' (a
// checked radio cannot be unchecked by a user).
const [elements, values, apply] = arguments;
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'date',
  'datetime-local', 'month', 'week', 'time', 'color']);

function kindOf(el) {
  const tag = el.localName;
  if (tag === 'textarea') return 'text';
  if (tag === 'select') return 'select';
  if (tag === 'input') {
    const type = el.type;
    if (type === 'checkbox' || type === 'radio') return type;
    if (type === 'number' || type === 'range') return type;
    return TEXT_TYPES.has(type) ? 'text' : null;
  }
  if (el.isContentEditable) return 'editable';
  const role = glExplicitRole(el);
  if (role === 'checkbox' || role === 'switch' || role === 'radio') return 'aria';
  return null;
}

// What the input's own sanitization makes of text (an empty answer means it refused it).
function probe(el, text, bounds) {
  const p = el.ownerDocument.createElement('input');
  p.type = el.type;
  if (bounds) {
    for (const attribute of ['min', 'max', 'step']) {
      if (el.hasAttribute(attribute)) p.setAttribute(attribute, el.getAttribute(attribute));
    }
  }
  p.value = text;
  return p.value;
}

function numeric(el, value) {
  if (value.t === 'number') return String(value.v);
  if (value.t === 'text') return value.v.trim();
  return null;
}

function matchOption(el, text) {
  const options = Array.from(el.options);
  const wanted = glSquash(text);
  return options.find((o) => o.value === text) ||
    options.find((o) => glSquash(o.label || o.text) === wanted) ||
    options.find((o) => glSquash(o.label || o.text).toLowerCase() === wanted.toLowerCase()) ||
    null;
}

function check(el, value) {
  if (!el || !el.isConnected) return 'detached';
  const kind = kindOf(el);
  if (!kind) return 'control';
  if ((el.matches && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true') return 'disabled';
  switch (kind) {
    case 'text': {
      if (value.t !== 'text') return 'kind';
      if (el.readOnly) return 'readonly';
      if (el.maxLength >= 0 && value.v.length > el.maxLength) return 'length';
      if (el.localName === 'input' && value.v !== '' && probe(el, value.v, false) === '') return 'format';
      return null;
    }
    case 'number':
    case 'range': {
      const text = numeric(el, value);
      if (text === null) return 'kind';
      if (el.readOnly) return 'readonly';
      if (text === '' && kind === 'number' && value.t === 'text') return null;
      const sanitized = probe(el, text, kind === 'range');
      if (sanitized === '') return 'number';
      if (kind === 'range' && Number(sanitized) !== Number(text)) return 'range';
      return null;
    }
    case 'select': {
      if (value.t !== 'text') return 'kind';
      const option = matchOption(el, value.v);
      if (!option) return 'option';
      if (option.disabled) return 'option_disabled';
      return null;
    }
    case 'checkbox':
      return value.t === 'checked' ? null : 'kind';
    case 'radio':
      if (value.t !== 'checked') return 'kind';
      return !value.v && el.checked ? 'radio_off' : null;
    case 'aria': {
      if (value.t !== 'checked') return 'kind';
      const on = el.getAttribute('aria-checked') === 'true';
      return glExplicitRole(el) === 'radio' && !value.v && on ? 'radio_off' : null;
    }
    case 'editable':
      return value.t === 'text' ? null : 'kind';
    default:
      return 'control';
  }
}

function events(el, data) {
  const view = el.ownerDocument.defaultView;
  el.dispatchEvent(new view.InputEvent('input', {
    bubbles: true, composed: true, inputType: 'insertReplacementText', data,
  }));
  el.dispatchEvent(new view.Event('change', { bubbles: true }));
}

function set(el, value) {
  const view = el.ownerDocument.defaultView;
  switch (kindOf(el)) {
    case 'text':
    case 'number':
    case 'range': {
      const text = kindOf(el) === 'text' ? value.v : numeric(el, value);
      const proto = el.localName === 'textarea' ? view.HTMLTextAreaElement.prototype : view.HTMLInputElement.prototype;
      el.focus();
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
      events(el, text);
      return;
    }
    case 'select': {
      const option = matchOption(el, value.v);
      el.focus();
      for (const o of Array.from(el.options)) o.selected = o === option;
      events(el, null);
      return;
    }
    case 'checkbox':
    case 'radio':
      if (el.checked !== value.v) el.click();
      return;
    case 'aria':
      if ((el.getAttribute('aria-checked') === 'true') !== value.v) el.click();
      return;
    case 'editable': {
      el.focus();
      const selection = view.getSelection();
      selection.selectAllChildren(el);
      const doc = el.ownerDocument;
      const done = value.v === '' ? doc.execCommand('delete') : doc.execCommand('insertText', false, value.v);
      if (!done) {
        el.textContent = value.v;
        events(el, value.v);
      }
      return;
    }
    default:
      return;
  }
}

for (let i = 0; i < elements.length; i++) {
  const reason = check(elements[i], values[i]);
  if (reason) return { status: 'invalid', index: i, reason };
}
if (apply) {
  for (let i = 0; i < elements.length; i++) set(elements[i], values[i]);
}
return { status: 'ok', filled: elements.length };
}
function glInputScroll() {
// Scrolling and settled scroll offsets. Runs after lib.js.
//
// arguments: [mode, element | null, by {x, y} | null, point {x, y} | null]
// Every mode but 'read' first notes the scroll offsets of what the scroll may move (the
// window, the frames' windows above it, and the composed ancestors of the element concerned)
// in a hidden property of this window, then:
//   'reveal'  scrolls element to the centre of the view, instantly;
//   'by'      scrolls the window instantly by (by.x, by.y) viewports (fractions of
//             innerWidth and innerHeight, signed);
//   'watch'   only notes the ancestors of the element at the viewport point (wheel input
//             follows from WebDriver); answers {status: 'outside'} for a point outside the
//             viewport.
// Every mode then answers a read: {status: 'ok', offsets: [...], changed, x, y}, where
// offsets are the noted scrollers' current offsets, changed says whether any differs from the
// note, and (x, y) are the top window's offsets (this window's when the top is cross-origin).
// Smooth scrolling (Firefox) makes offsets move after the answer: the adapter calls 'read'
// until two reads agree.
const [mode, element, by, point] = arguments;
const NOTE = Symbol.for('gl.scrollNote');
// Scrollers noted at most.
const MAX_SCROLLERS = 64;
const windows = () => {
  const list = [];
  let w = window;
  for (let hop = 0; w && hop < GL_MAX_HOPS; hop++) {
    list.push(w);
    let up = null;
    try {
      up = w.parent !== w && w.parent.document ? w.parent : null;
    } catch (_) {
      up = null;
    }
    w = up;
  }
  return list;
};
const chain = (el) => {
  const list = [];
  let n = el;
  for (let i = 0; n && i < GL_MAX_DEPTH && list.length < MAX_SCROLLERS; i++) {
    if (n.nodeType === 1) {
      if (n.scrollHeight > n.clientHeight || n.scrollWidth > n.clientWidth) list.push(n);
      n = glParent(n);
    } else if (n.nodeType === 9) {
      let frame = null;
      try {
        frame = n.defaultView ? n.defaultView.frameElement : null;
      } catch (_) {
        frame = null;
      }
      n = frame;
    } else {
      n = glParent(n);
    }
  }
  return list;
};
const offsetsOf = (scrollers) => {
  const values = [];
  for (const s of scrollers) {
    if (s.nodeType === 1) {
      values.push(s.scrollLeft, s.scrollTop);
    } else {
      values.push(s.scrollX, s.scrollY);
    }
  }
  return values;
};
const read = () => {
  const note = window[NOTE] || { scrollers: [], offsets: [] };
  const offsets = offsetsOf(note.scrollers);
  const changed = offsets.some((v, i) => v !== note.offsets[i]);
  let top = window;
  try {
    top = window.top.document ? window.top : window;
  } catch (_) {
    top = window;
  }
  return { status: 'ok', offsets, changed, x: top.scrollX, y: top.scrollY };
};
if (mode === 'read') return read();
let watched = element;
if (mode === 'watch') {
  if (!(point.x >= 0 && point.y >= 0 && point.x < window.innerWidth && point.y < window.innerHeight)) {
    return { status: 'outside' };
  }
  watched = glDeepHit(document, point.x, point.y);
}
const scrollers = windows().concat(watched ? chain(watched) : []);
Object.defineProperty(window, NOTE, {
  value: { scrollers, offsets: offsetsOf(scrollers) }, writable: true, configurable: true, enumerable: false,
});
if (mode === 'reveal') {
  element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
} else if (mode === 'by') {
  window.scrollBy({ left: by.x * window.innerWidth, top: by.y * window.innerHeight, behavior: 'instant' });
}
return read();
}
function glInputUpload() {
// File input check before an upload: the element must be an enabled <input type=file>, taking
// several files when several are sent. When it fits, its current files are cleared (WebDriver
// adds files to the ones already chosen). Runs after lib.js.
//
// arguments: [element, options {count, state, cap}]
// Answers {status: 'ok', summary, state} or {status: 'not_file' | 'disabled' | 'not_multiple'}.
const [element, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (element.localName !== 'input' || element.type !== 'file') return Object.assign(out, { status: 'not_file' });
if (element.disabled) return Object.assign(out, { status: 'disabled' });
if (options.count > 1 && !element.multiple) return Object.assign(out, { status: 'not_multiple' });
element.value = '';
return Object.assign(out, { status: 'ok', summary: glSummary(element, options.cap) });
}
function glInputAttach() {
// Files attached to a file input from memory, for a connector that cannot drive the file
// chooser (the browser extension): File objects built from base64 in the input's realm, and
// a DataTransfer's files assigned to `input.files` (the selection becomes exactly these
// files); then `input` and `change` fire, bubbling, as a user's choice fires them. The events
// are untrusted (isTrusted is false). Runs after upload.js's checks passed for the element.
//
// arguments: [element, files [{name, type, data (base64)}]]
// Answers the number of files the input holds afterwards.
const [input, files] = arguments;
const view = input.ownerDocument.defaultView;
const transfer = new view.DataTransfer();
for (const file of files) {
  const raw = atob(file.data);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  transfer.items.add(new view.File([bytes], file.name, { type: file.type, lastModified: Date.now() }));
}
input.files = transfer.files;
input.dispatchEvent(new view.Event('input', { bubbles: true, composed: true }));
input.dispatchEvent(new view.Event('change', { bubbles: true }));
return input.files.length;
}
function glInputAttachReplay() {
// Attach a replay GIF to a file input, from memory: arguments are [the input element,
// base64 GIF, file name]. The selection becomes exactly this one file (a DataTransfer's
// FileList assigned to `input.files`), then `input` and `change` fire as a user's choice
// would fire them (these events are untrusted: isTrusted is false). Answers false when the
// element is not a file input.
const [input, data, name] = arguments;
if (!input || input.localName !== 'input' || String(input.type).toLowerCase() !== 'file') {
  return false;
}
const raw = atob(data);
const bytes = new Uint8Array(raw.length);
for (let i = 0; i < raw.length; i += 1) {
  bytes[i] = raw.charCodeAt(i);
}
const transfer = new DataTransfer();
transfer.items.add(new File([bytes], name, { type: 'image/gif', lastModified: Date.now() }));
input.files = transfer.files;
input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
input.dispatchEvent(new Event('change', { bubbles: true }));
return true;
}
// The extension's page API: the shared scripts (ghostlight-webdriver/src/scripts, composed
// before this by `page::bundle`) called from the extension's isolated world, with element
// references kept in a per-document registry. Nothing here is visible to the page: the page's
// own scripts run in another world (other prototypes, other globals), so it can neither
// override what perception calls nor read or forge the registry.
//
// An element reference is {doc, id}: `doc` names this document (a nonce drawn when the API is
// first injected into it), `id` an element registered here. A reference of another document,
// an element collected or detached, answers `stale`.
const GL_DOCUMENT = (() => {
  try {
    return crypto.randomUUID();
  } catch (_) {
    return String(Math.random()).slice(2) + String(Math.random()).slice(2);
  }
})();
// Dead registry entries are swept when the registry grows past this many.
const GL_REGISTRY_SWEEP = 20000;
const glIds = new WeakMap();
const glElements = new Map();
let glNextId = 1;

function glRegister(el) {
  let id = glIds.get(el);
  if (id === undefined) {
    if (glElements.size >= GL_REGISTRY_SWEEP) {
      for (const [key, ref] of glElements) if (!ref.deref()) glElements.delete(key);
    }
    id = glNextId++;
    glIds.set(el, id);
    glElements.set(id, new WeakRef(el));
  }
  return id;
}

// The element a reference names, or null (another document, collected, detached).
function glLookup(ref) {
  if (!ref || ref.doc !== GL_DOCUMENT || !Number.isSafeInteger(ref.id)) return null;
  const held = glElements.get(ref.id);
  const el = held ? held.deref() : undefined;
  return el && el.isConnected ? el : null;
}

// The index of an iframe's window among this window's frames (what the extension maps onto
// its frame ids), or -1.
function glFrameIndex(frame) {
  let inner = null;
  try {
    inner = frame.contentWindow;
  } catch (_) {
    inner = null;
  }
  if (!inner) return -1;
  for (let i = 0; i < window.frames.length; i++) if (window.frames[i] === inner) return i;
  return -1;
}

// This document's place among frames: the index of each window in its parent's frames, from
// the top down (allowed across origins).
function glFramePath() {
  const path = [];
  for (let w = window; w !== w.parent && path.length < 64; w = w.parent) {
    const parent = w.parent;
    let at = -1;
    for (let i = 0; i < parent.frames.length; i++) {
      if (parent.frames[i] === w) {
        at = i;
        break;
      }
    }
    path.unshift(at);
  }
  return path;
}

// Where a frame element sits in this document's viewport: its content's top-left corner, and
// its box inside the border (what shows the frame's document).
function glFrameBox(frame) {
  const outer = frame.getBoundingClientRect();
  const style = window.getComputedStyle(frame);
  const x = outer.left + frame.clientLeft;
  const y = outer.top + frame.clientTop;
  return {
    content: [x + (parseFloat(style.paddingLeft) || 0), y + (parseFloat(style.paddingTop) || 0)],
    box: [x, y, frame.clientWidth || outer.width, frame.clientHeight || outer.height],
  };
}

const GL_STALE = Object.freeze({ stale: true });

const glPage = Object.freeze({
  // This document: its identity, URL and place among frames.
  here() {
    return { doc: GL_DOCUMENT, url: glAuthorityUrl(document), path: glFramePath() };
  },

  // Perception (perceive.js): items with registry ids, frames with their index.
  perceive(opts, root) {
    let rootEl = null;
    if (root) {
      rootEl = glLookup(root);
      if (!rootEl) return GL_STALE;
    }
    const options = Object.assign({}, opts, { nameMax: GL_LIMITS.nameMax, textMax: GL_LIMITS.textMax });
    options.max = Math.min(Math.max(0, Number(options.max) | 0), GL_LIMITS.perceiveMax);
    options.maxDepth = Math.min(Math.max(0, Number(options.maxDepth) | 0), GL_LIMITS.documentMaxDepth);
    options.query = String(options.query ?? '').slice(0, GL_LIMITS.queryMax);
    const raw = glPerceive(options, rootEl);
    return {
      doc: GL_DOCUMENT,
      url: glAuthorityUrl(document),
      items: raw.items.map((item) => Object.assign({}, item, { e: glRegister(item.e) })),
      frames: raw.frames.map((frame) => ({ i: glFrameIndex(frame.e), at: frame.at, d: frame.d })),
      truncated: raw.truncated,
      focusFrame: raw.focusFrame ? { i: glFrameIndex(raw.focusFrame), e: glRegister(raw.focusFrame) } : null,
    };
  },

  // Whether the element is attached and shown (element_present.js); a stale one is not.
  present(ref) {
    const el = glLookup(ref);
    return !!el && glElementPresent(el);
  },

  // Text (read_text.js) of the page, or of one element.
  readText(opts, target) {
    let el = null;
    if (target) {
      el = glLookup(target);
      if (!el) return GL_STALE;
    }
    const options = {
      mode: String(opts.mode),
      max: Math.min(Math.max(0, Number(opts.max) | 0), GL_LIMITS.readMax),
      minArticle: GL_LIMITS.minArticle,
      minBlock: GL_LIMITS.minBlock,
      maxNodes: GL_LIMITS.maxNodes,
    };
    return glReadText(options, el);
  },

  // Whether this document's visible text contains `query` (text_present.js).
  textPresent(query) {
    return glTextPresent({ query: String(query ?? '').slice(0, GL_LIMITS.queryMax) });
  },

  // The visible frames of this document (frames_here.js): each one's index among
  // window.frames (-1 when it is not among them) and where it sits (glFrameBox); then every
  // visible <object> and <embed>, which host documents too but are never walked into (index
  // -1: painted over in captures, left out of perception).
  frames() {
    const listed = glFramesHere();
    const frames = listed.frames.map((frame) => Object.assign({ i: glFrameIndex(frame) }, glFrameBox(frame)));
    for (const el of document.querySelectorAll('object, embed')) {
      if (frames.length >= 64) break;
      if (glVisible(el)) frames.push(Object.assign({ i: -1 }, glFrameBox(el)));
    }
    return { url: listed.url, frames };
  },

  // The element's border box in document CSS pixels of the top document (capture_element.js),
  // scrolled into view first when `scroll`; with the top document's scroll offsets (null when
  // another origin's document lies between) and the box's corner in this frame's viewport.
  box(ref, scroll) {
    const el = glLookup(ref);
    if (!el) return GL_STALE;
    const box = glCaptureElement(el, scroll === true);
    const view = el.getBoundingClientRect();
    let top = null;
    try {
      top = [window.top.scrollX, window.top.scrollY];
    } catch (_) {
      top = null;
    }
    return Object.assign(box, { top, view: [view.left, view.top] });
  },

  // Where this document's visible frame `i` (its index among window.frames) sits
  // (glFrameBox), or null when it is not shown.
  frameOffset(i) {
    const target = window.frames[Number(i)];
    if (!target) return null;
    const frame = glFramesHere().frames.find((f) => f.contentWindow === target);
    return frame ? glFrameBox(frame) : null;
  },

  // The CSS size of the whole document (capture_page_size.js).
  pageSize() {
    return glCapturePageSize();
  },

  // An input script (scripts/input/*.js) run in this document: `args` as the script reads them, where {glRef: ref} stands for an element of this
  // document (stale when it is gone) and an array of them for a list of elements.
  input(name, args) {
    const scripts = {
      target: glInputTarget, focus: glInputFocus, keyGuard: glInputKeyGuard, fill: glInputFill, scroll: glInputScroll,
      upload: glInputUpload, attach: glInputAttach, attachReplay: glInputAttachReplay,
    };
    const script = Object.prototype.hasOwnProperty.call(scripts, name) ? scripts[name] : null;
    if (!script || !Array.isArray(args)) return GL_STALE;
    let stale = false;
    const element = (v) => {
      const el = glLookup(v.glRef);
      if (!el) stale = true;
      return el;
    };
    const isRef = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, 'glRef');
    const resolved = args.map((arg) => {
      if (isRef(arg)) return element(arg);
      if (Array.isArray(arg) && arg.length > 0 && arg.every(isRef)) return arg.map(element);
      return arg;
    });
    if (stale) return GL_STALE;
    // Plain data only (a hit test's answer may hold the frame element it stopped at).
    return JSON.parse(JSON.stringify(script.apply(null, resolved)) ?? 'null');
  },

  // Whether the topmost element at viewport point (x, y) of this document (through open shadow
  // roots) is the frame showing window.frames[i]: where input at that point goes into it.
  // Answers {ok}, {ok: false, by: the summary of what is there instead}, or {outside} when
  // nothing is there (the point is outside the viewport).
  frameAt(x, y, i) {
    const target = window.frames[Number(i)];
    let el = document.elementFromPoint(Number(x), Number(y));
    for (let hops = 0; el && el.shadowRoot && hops < GL_MAX_HOPS; hops++) {
      const inner = el.shadowRoot.elementFromPoint(Number(x), Number(y));
      if (!inner || inner === el) break;
      el = inner;
    }
    if (!el) return { ok: false, outside: true };
    if (target && el.contentWindow === target) return { ok: true };
    return { ok: false, by: glSummary(glMeaningful(el), GL_LIMITS.nameMax) };
  },

  // The first element matching `selector`, registered (tests name elements this way).
  select(selector) {
    let el = null;
    try {
      el = document.querySelector(String(selector));
    } catch (_) {
      el = null;
    }
    return el ? { doc: GL_DOCUMENT, id: glRegister(el) } : null;
  },
});
Object.defineProperty(globalThis, GL_KEY, { value: glPage });
})();
