// Ghostlight input helpers, prepended to every script under scripts/input/ (see
// ops/input/mod.rs). Function declarations local to one Execute Script body: nothing is left
// on the page. Engine-neutral (Chromium and Firefox); every walk is bounded.
//
// - glRole(el), glName(el, cap), glSummary(el, cap): the role and accessible name of an
//   element, never an editable value (input values, textarea text and contenteditable text
//   are skipped wherever they would appear). Text names roles named by their content; any
//   other element only when its text is short (never the body or the document).
// - glParent(node): the parent in the composed tree (a shadow root answers its host).
// - glInside(outer, node): whether node is outer or inside it, across shadow roots.
// - glDeepHit(doc, x, y): the topmost element at viewport point (x, y) of doc, through open
//   shadow roots and same-origin iframes; glDeepTrace(doc, x, y) also answers the frame
//   documents it entered and the cross-origin frame it stopped at.
// - glArmKeyGuard(key, pinned), glDisarmKeyGuard(key): keep key presses inside one element
//   while the adapter sends them (see the functions).
// - glMeaningful(el): el or its nearest ancestor a person would name (a control, heading,
//   image, dialog, focusable or ARIA-labelled element); el when there is none.
// - glDraggable(el): el or its nearest ancestor with draggable="true", or null.
// - glDeepActive(doc): the focused element through shadow roots and same-origin iframes, or
//   null when nothing but the body has focus.

// Ancestors visited by one walk.
const GL_MAX_DEPTH = 512;
// Nodes visited while reading the text of one name.
const GL_MAX_TEXT_NODES = 2000;
// Shadow roots and frames crossed by one hit test or focus lookup.
const GL_MAX_HOPS = 32;
// Element ids read from one aria-labelledby.
const GL_MAX_LABEL_IDS = 16;
// Label elements read for one control.
const GL_MAX_LABELS = 8;
// The closed role set core names (anything else is reported as the page spells it).
const GL_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox',
  'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'tab', 'menuitem', 'treeitem', 'heading',
  'img', 'dialog']);
// Roles whose content is a value the user edits.
const GL_EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'listbox']);
// Roles named by their content (WAI-ARIA "name from content"); other elements only by short text.
const GL_NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'option', 'tab',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'heading', 'cell', 'gridcell',
  'columnheader', 'rowheader', 'row', 'tooltip']);
// GL_GENERIC_NAME_CHARS (defined by the adapter before these helpers, from core's name bound):
// the longest text that names an element outside those roles.
// Elements whose text never names anything (scripts, styles, editable or value-bearing content).
const GL_SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'textarea', 'select', 'input']);

function glImplicitRole(el) {
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'button': case 'summary': return 'button';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'textarea': return 'textbox';
    case 'option': return 'option';
    case 'dialog': return 'dialog';
    case 'img': return el.getAttribute('alt') === '' ? null : 'img';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'input': {
      switch ((el.getAttribute('type') || 'text').toLowerCase()) {
        case 'hidden': return null;
        case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
        case 'checkbox': return 'checkbox';
        case 'radio': return 'radio';
        case 'range': return 'slider';
        case 'number': return 'spinbutton';
        case 'search': return el.list ? 'combobox' : 'searchbox';
        default: return el.list ? 'combobox' : 'textbox';
      }
    }
    default: return null;
  }
}

function glExplicitRole(el) {
  return (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
}

function glRole(el) {
  const explicit = glExplicitRole(el);
  if (GL_ROLES.has(explicit)) return explicit;
  const implicit = glImplicitRole(el);
  if (implicit) return implicit;
  if (el.isContentEditable) return 'textbox';
  return explicit || 'control';
}

// Whether el holds a value the user edits (its text or value is never a name).
function glEditable(el) {
  const tag = el.localName;
  if (tag === 'textarea' || tag === 'select' || el.isContentEditable) return true;
  if (tag === 'input') {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    return !['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'hidden', 'file'].includes(type);
  }
  return GL_EDITABLE_ROLES.has(glExplicitRole(el));
}

function glNorm(text, cap) {
  return String(text || '').replace(/\s+/g, ' ').trim().slice(0, cap);
}

// Visible-ish text of root, skipping editable and value-bearing descendants, bounded.
function glText(root, cap) {
  const doc = root.ownerDocument || root;
  const view = doc.defaultView;
  const walker = doc.createTreeWalker(root, view.NodeFilter.SHOW_ELEMENT | view.NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === 3) return view.NodeFilter.FILTER_ACCEPT;
      if (GL_SKIP_TEXT.has(node.localName) || node.isContentEditable || node.hidden ||
          node.getAttribute('aria-hidden') === 'true') {
        return view.NodeFilter.FILTER_REJECT;
      }
      return view.NodeFilter.FILTER_SKIP;
    },
  });
  let text = '';
  for (let seen = 0; seen < GL_MAX_TEXT_NODES && text.length < cap * 2; seen++) {
    const node = walker.nextNode();
    if (!node) break;
    text += ' ' + node.data;
  }
  return glNorm(text, cap);
}

function glName(el, cap) {
  const root = el.getRootNode();
  const byId = (id) => (root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id));
  const ids = (el.getAttribute('aria-labelledby') || '').trim();
  if (ids) {
    const parts = ids.split(/\s+/).slice(0, GL_MAX_LABEL_IDS).map(byId).filter(Boolean);
    const text = glNorm(parts.map((part) => glText(part, cap)).join(' '), cap);
    if (text) return text;
  }
  const label = glNorm(el.getAttribute('aria-label'), cap);
  if (label) return label;
  if (el.labels && el.labels.length) {
    const labels = Array.from(el.labels).slice(0, GL_MAX_LABELS);
    const text = glNorm(labels.map((l) => glText(l, cap)).join(' '), cap);
    if (text) return text;
  }
  const tag = el.localName;
  const type = (el.getAttribute('type') || '').toLowerCase();
  if (tag === 'img' || tag === 'area' || (tag === 'input' && type === 'image')) {
    const alt = glNorm(el.getAttribute('alt'), cap);
    if (alt) return alt;
  }
  if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
    // A button's value is its label, not something the user edits.
    const value = glNorm(el.getAttribute('value'), cap);
    if (value) return value;
    if (type === 'submit') return 'Submit';
    if (type === 'reset') return 'Reset';
  }
  if (!glEditable(el)) {
    if (GL_NAME_FROM_CONTENT.has(glRole(el))) {
      const text = glText(el, cap);
      if (text) return text;
    } else if (tag !== 'body' && tag !== 'html') {
      // A generic element is named by its text only when that text is short: a container's
      // text is its content, not its name.
      const text = glText(el, GL_GENERIC_NAME_CHARS + 1);
      if (text && text.length <= GL_GENERIC_NAME_CHARS) return text.slice(0, cap);
    }
  }
  const title = glNorm(el.getAttribute('title'), cap);
  if (title) return title;
  const placeholder = glNorm(el.getAttribute('placeholder'), cap);
  if (placeholder) return placeholder;
  return null;
}

function glSummary(el, cap) {
  return { role: glRole(el), name: glName(el, cap) };
}

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
    if (hit.localName === 'iframe' || hit.localName === 'frame') {
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
        frames.push(String(frameDoc.URL));
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
  for (let n = el, i = 0; n && n.nodeType === 1 && i < GL_MAX_DEPTH; n = glParent(n), i++) {
    const tag = n.localName;
    if (tag === 'body' || tag === 'html') break;
    if (n.isContentEditable) {
      const up = glParent(n);
      if (!(up && up.nodeType === 1 && up.isContentEditable)) return n;
      continue;
    }
    if (GL_ROLES.has(glExplicitRole(n)) || glImplicitRole(n) || n.hasAttribute('aria-label') ||
        n.hasAttribute('aria-labelledby') || (n.hasAttribute('tabindex') && n.tabIndex >= 0)) {
      return n;
    }
  }
  return el;
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
