// Frames on screen, for the gate (ops/frames.rs): every visible iframe, frame, object or embed of this
// document, through open shadow roots and into same-origin frame documents, with its content
// box in this document's viewport coordinates and its document's URL. A frame of another
// origin answers url null: a frame of this document also answers its element (the adapter
// switches into it to read the URL); one nested in a same-origin frame answers no element
// (it cannot be entered from here, so the adapter blanks it). Bounded by MAX_FRAMES.
//
// arguments: [] — answers {scrollX, scrollY, width, height, scale, frames: [{x, y, w, h, cx, cy,
// url, e}]} (width, height: the viewport's inner size; scale: the device pixel ratio). x, y, w,
// h: the box the frame is drawn in (its bounding box, so that blanking it covers a scaled or
// rotated frame too); cx, cy: where its document's viewport starts (inside border and
// padding), for the frames inside it (known weak: those are placed without their parent's
// scale).
const MAX_FRAMES = 64;
const MAX_NODES = 20000;
const frames = [];
const visit = (root, dx, dy, top) => {
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
    const x = dx + r.left;
    const y = dy + r.top;
    const w = r.width;
    const h = r.height;
    const style = node.ownerDocument.defaultView.getComputedStyle(node);
    const cx = x + node.clientLeft + (parseFloat(style.paddingLeft) || 0);
    const cy = y + node.clientTop + (parseFloat(style.paddingTop) || 0);
    let doc = null;
    try {
      doc = node.contentDocument;
    } catch (_) {
      doc = null;
    }
    if (doc) {
      frames.push({ x, y, w, h, cx, cy, url: glAuthorityUrl(doc), e: null });
      if (doc.documentElement) visit(doc.documentElement, cx, cy, false);
    } else {
      const enterable = top && (tag === 'iframe' || tag === 'frame');
      frames.push({ x, y, w, h, cx, cy, url: null, e: enterable ? node : null });
    }
  }
};
if (document.documentElement) visit(document.documentElement, 0, 0, true);
return {
  scrollX: window.scrollX, scrollY: window.scrollY,
  width: window.innerWidth, height: window.innerHeight, scale: window.devicePixelRatio, frames,
};
