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
//   'covered'   another element is topmost at the target's centre (x, y); by: its summary;
//   'nobox'     the element is not shown (glVisible of dom.js: display:none, visibility,
//               inert, no box) or is detached, or its first layout box is empty;
//   'outside'   the point (or the target's centre) is outside the viewport.
// state: the page state (glPageState) when options.state, taken before any input.
// url: this document's URL (the document an element target lives in). frames, the same-origin
// frame documents the hit entered, and cross, the frame of another origin it stopped at with
// the point inside it (glDeepTrace), for the adapter's gate: where input at the point lands
// (an element target that is or holds a frame passes it on; a frame covering the target is
// judged before the cover is reported).
const [target, point, options] = arguments;
// Whether `node` is `outer` or inside it, through the frame elements of the same-origin frame
// documents it sits in (a target holding a frame takes input that lands in the frame).
function glHolds(outer, node) {
  let n = node;
  for (let hop = 0; n && hop < GL_MAX_HOPS; hop++) {
    if (glInside(outer, n)) return true;
    const view = n.ownerDocument && n.ownerDocument.defaultView;
    n = view && view !== outer.ownerDocument.defaultView ? view.frameElement : null;
  }
  return false;
}
// The frame of another origin a trace stopped at, as answered.
function glCrossOf(trace) {
  return trace.cross ? { frame: trace.cross.frame, x: trace.cross.x, y: trace.cross.y } : null;
}
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
  const trace = glDeepTrace(target.ownerDocument, x, y);
  const hit = trace.hit;
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
  if (options.check && !glHolds(target, hit) && !forwards) {
    return Object.assign(out, {
      status: 'covered', x, y, by: glSummary(glMeaningful(hit), cap), frames: trace.frames, cross: glCrossOf(trace),
    });
  }
  return Object.assign(out, {
    status: 'ok', x, y, summary: glSummary(target, cap), draggable: glDraggable(target) !== null,
    frames: trace.frames, cross: glCrossOf(trace),
  });
}
if (!(point.x >= 0 && point.y >= 0 && point.x < width && point.y < height)) {
  return Object.assign(out, { status: 'outside' });
}
const trace = glDeepTrace(document, point.x, point.y);
const hit = trace.hit;
if (!hit) return Object.assign(out, { status: 'outside' });
const cross = glCrossOf(trace);
return Object.assign(out, {
  status: 'ok', x: point.x, y: point.y, summary: cross ? null : glSummary(glMeaningful(hit), cap),
  draggable: glDraggable(hit) !== null, frames: trace.frames, cross,
});
