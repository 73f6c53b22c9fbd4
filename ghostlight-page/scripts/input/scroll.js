// Scrolling and settled scroll offsets. Runs after lib.js and scroll_offsets.js.
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
// note, and (x, y) are the top window's offsets (this window's when the top is cross-origin);
// 'by' adds `snaps`, whether the window snaps (CSS `scroll-snap-type`).
// Offsets that may move after the answer (a snap, Firefox's reveal, wheel input) are read
// again by the adapter (scroll_offsets.js alone, or the 'read' mode) until two reads agree.
const [mode, element, by, point] = arguments;
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
  // An instant step is final when the answer is read, unless the window snaps: a snap may
  // still move it (smoothly, under `scroll-behavior: smooth`), so the adapter reads again.
  const snap = getComputedStyle(document.documentElement).scrollSnapType;
  return Object.assign(read(), { snaps: Boolean(snap) && snap !== 'none' });
}
return read();
