// The extension's page API: the shared scripts (ghostlight-page/scripts, composed
// before this by `ghostlight_page::bundle`) called from the extension's isolated world, with element
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

// Where a frame element sits in this document's viewport: its content's top-left corner and
// the scale its document is drawn at, with `place` saying whether they can be relied on
// (glFramePlace), and the box it is drawn in (its bounding box, so that blanking it covers a
// scaled or rotated frame too).
function glFrameBox(frame) {
  const outer = frame.getBoundingClientRect();
  const place = glFramePlace(frame);
  return {
    content: [place.x, place.y],
    scale: [place.sx, place.sy],
    place: place.status,
    box: [outer.left, outer.top, outer.width, outer.height],
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

  // The gate this (top) document presents, or null (gate.js; never throws).
  gate() {
    try {
      return glGate();
    } catch (_) {
      return null;
    }
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
    const el = glShadowHit(document, Number(x), Number(y));
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
