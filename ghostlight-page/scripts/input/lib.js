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

// How computed style `cs` maps points of an element's box to the viewport: 'moved' (by a
// translation at most), 'scaled' (positive scales and translations), 'reshaped' (rotated,
// skewed, flipped, moved along a path or transformed in 3D) or 'unmapped' (zoomed: where the
// engines place a zoomed box is not what offsets tell).
function glBoxMapping(cs) {
  const set = (value) => Boolean(value) && value !== 'none';
  if (set(cs.rotate) || set(cs.offsetPath)) return 'reshaped';
  if (cs.zoom && cs.zoom !== '1' && cs.zoom !== 'normal') return 'unmapped';
  let scaled = false;
  if (set(cs.scale)) {
    const factors = cs.scale.split(/\s+/).map(Number);
    if (factors.some((f) => !(f > 0)) || (factors.length > 2 && factors[2] !== 1)) return 'reshaped';
    scaled = factors.some((f) => f !== 1);
  }
  if (!set(cs.transform)) return scaled ? 'scaled' : 'moved';
  let m;
  try {
    m = new DOMMatrixReadOnly(cs.transform);
  } catch (_) {
    return 'reshaped';
  }
  const flat = m.m33 === 1 && m.m44 === 1
    && [m.m12, m.m13, m.m14, m.m21, m.m23, m.m24, m.m31, m.m32, m.m34].every((v) => v === 0);
  if (!flat || !(m.m11 > 0) || !(m.m22 > 0)) return 'reshaped';
  return scaled || m.m11 !== 1 || m.m22 !== 1 ? 'scaled' : 'moved';
}

// Where frame element `frame` draws its document in its own document's viewport: {status, x,
// y, sx, sy}, the top-left corner of its content (inside border and padding) and the scale it
// is drawn at (its box's size over its layout size, 1 unless an ancestor or the frame is
// scaled), so that point (fx, fy) of the frame's viewport is (x + sx * fx, y + sy * fy) here.
// status is 'ok', or glBoxMapping's 'reshaped' or 'unmapped' when the frame or an ancestor
// maps points other than by translations and scales (the corner is then by offsets alone,
// unscaled, and cannot be relied on).
function glFramePlace(frame) {
  const view = frame.ownerDocument.defaultView;
  let status = 'ok';
  let scaled = false;
  for (let el = frame, i = 0; el && el.nodeType === 1 && i < GL_MAX_DEPTH; el = glParent(el), i++) {
    const how = glBoxMapping(view.getComputedStyle(el));
    if (how === 'reshaped' || how === 'unmapped') {
      status = how;
      break;
    }
    scaled = scaled || how === 'scaled';
  }
  const r = frame.getBoundingClientRect();
  const style = view.getComputedStyle(frame);
  // (offsetWidth and offsetHeight are the untransformed layout size, in whole pixels.)
  const ratio = (drawn, laid) => (status === 'ok' && scaled && laid > 0 ? drawn / laid : 1);
  const sx = ratio(r.width, frame.offsetWidth);
  const sy = ratio(r.height, frame.offsetHeight);
  return {
    status,
    x: r.left + sx * (frame.clientLeft + (parseFloat(style.paddingLeft) || 0)),
    y: r.top + sy * (frame.clientTop + (parseFloat(style.paddingTop) || 0)),
    sx,
    sy,
  };
}

// The point of a frame's viewport under viewport point (x, y) of the frame element's
// document (glFramePlace).
function glIntoFrame(frame, x, y) {
  const place = glFramePlace(frame);
  return [(x - place.x) / place.sx, (y - place.y) / place.sy];
}

// The topmost element at viewport point (x, y) of doc, through open shadow roots (frames are
// not entered).
function glShadowHit(doc, x, y) {
  let hit = doc.elementFromPoint(x, y);
  for (let hop = 0; hit && hit.shadowRoot && hop < GL_MAX_HOPS; hop++) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit || !glInside(hit, inner)) break;
    hit = inner;
  }
  return hit;
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
      const [fx, fy] = glIntoFrame(hit, cx, cy);
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
