// Frames on screen, for the gate (ops/frames.rs): every visible iframe, frame, object or embed of this
// document, through open shadow roots and into same-origin frame documents, with its content
// box in this document's viewport coordinates and its document's URL. A frame of another
// origin answers url null: a frame of this document also answers its element (the adapter
// switches into it to read the URL); one nested in a same-origin frame answers no element
// (it cannot be entered from here, so the adapter blanks it). Bounded by MAX_FRAMES.
//
// arguments: [] — answers {scrollX, scrollY, width, height, scale, frames: [{x, y, w, h, cx, cy,
// sx, sy, placed, url, e}]} (width, height: the viewport's inner size; scale: the device pixel
// ratio). Runs after lib.js (glFramePlace). x, y, w, h: the box the frame is drawn in (its
// bounding box, so that blanking it covers a scaled or rotated frame too); cx, cy: where its
// document's viewport starts (inside border and padding) and sx, sy the scale that document is
// drawn at, for the frames inside it (point (fx, fy) of the frame's viewport is (cx + sx * fx,
// cy + sy * fy) here); placed: whether those can be relied on (false for a frame rotated,
// skewed or zoomed, or inside such an element: the adapter blanks the whole frame rather than
// place the frames inside it). A same-origin frame that cannot be placed and holds frames of
// its own answers url 'data:,' (unknown, so blanked whole) instead of its frames.
const MAX_FRAMES = 64;
const MAX_NODES = 20000;
const frames = [];
const visit = (root, ox, oy, osx, osy, top) => {
  const stack = [root];
  let nodes = 0;
  while (stack.length && frames.length < MAX_FRAMES && nodes < MAX_NODES) {
    const node = stack.pop();
    nodes += 1;
    if (node.shadowRoot) stack.push(node.shadowRoot);
    for (let child = node.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
    const tag = node.localName;
    // Every element that hosts a document: iframe, frame, object, embed (an object or embed
    // of another origin cannot be entered: it is blanked like a frame that cannot be read).
    const nested = tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed';
    if (!nested) continue;
    const r = node.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    const place = glFramePlace(node);
    const box = {
      x: ox + osx * r.left, y: oy + osy * r.top, w: osx * r.width, h: osy * r.height,
      cx: ox + osx * place.x, cy: oy + osy * place.y, sx: osx * place.sx, sy: osy * place.sy,
      placed: place.status === 'ok',
    };
    let doc = null;
    try {
      doc = node.contentDocument;
    } catch (_) {
      doc = null;
    }
    if (doc) {
      const entry = Object.assign(box, { url: glAuthorityUrl(doc), e: null });
      frames.push(entry);
      const inner = frames.length;
      if (doc.documentElement) visit(doc.documentElement, box.cx, box.cy, box.sx, box.sy, false);
      if (!box.placed && frames.length > inner) {
        frames.length = inner;
        entry.url = 'data:,';
      }
    } else {
      const enterable = top && (tag === 'iframe' || tag === 'frame');
      frames.push(Object.assign(box, { url: null, e: enterable ? node : null }));
    }
  }
};
if (document.documentElement) visit(document.documentElement, 0, 0, 1, 1, true);
return {
  scrollX: window.scrollX, scrollY: window.scrollY,
  width: window.innerWidth, height: window.innerHeight, scale: window.devicePixelRatio, frames,
};
