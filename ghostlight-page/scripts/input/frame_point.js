// Frame point: where a point of a frame's viewport lies in the viewport of the document that
// holds the frame element, so that pointer input can be aimed from the top document without
// entering the frame. Runs in the frame element's document (its sandbox realm), after lib.js.
//
// arguments: [frame element, x, y, options {cap}]
// Answers {status, x, y, by, url}: status is
//   'ok'           x, y: the point in this document's viewport, where the topmost element
//                  (through open shadow roots) is the frame element itself;
//   'covered'      another element is topmost there; by: its summary;
//   'outside'      the point is outside this document's viewport, or the frame is not shown;
//   'reshaped'     the frame or an ancestor is rotated, skewed, flipped or transformed in 3D,
//                  which no pointer input here can be aimed through;
//   'unmapped'     the frame or an ancestor is zoomed, or the topmost element there is a host
//                  whose shadow tree cannot be entered: the adapter aims inside the frame
//                  instead.
// Translations and positive scales are carried (a frame in a scaled preview): the frame's
// content is drawn scaled by its box's size over its layout size.
// url: this document's URL (the adapter's gate admits every document the input crosses).
const [frame, x, y, options] = arguments;
const out = { url: glAuthorityUrl(document) };
if (!frame || !frame.isConnected || frame.ownerDocument !== document) {
  return Object.assign(out, { status: 'outside' });
}
const view = document.defaultView;
// How computed style `cs` maps points: 'moved' (a translation at most), 'scaled' (positive
// scales and translations), 'reshaped' or 'unmapped' (see above).
const mapping = (cs) => {
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
};
let scaled = false;
for (let el = frame, i = 0; el && el.nodeType === 1 && i < GL_MAX_DEPTH; el = glParent(el), i++) {
  const how = mapping(view.getComputedStyle(el));
  if (how === 'reshaped' || how === 'unmapped') return Object.assign(out, { status: how });
  scaled = scaled || how === 'scaled';
}
if (!frame.getClientRects().length) return Object.assign(out, { status: 'outside' });
const box = frame.getBoundingClientRect();
const style = view.getComputedStyle(frame);
// (offsetWidth and offsetHeight are the untransformed layout size, in whole pixels.)
const sx = scaled && frame.offsetWidth > 0 ? box.width / frame.offsetWidth : 1;
const sy = scaled && frame.offsetHeight > 0 ? box.height / frame.offsetHeight : 1;
const px = box.left + sx * (frame.clientLeft + (parseFloat(style.paddingLeft) || 0) + x);
const py = box.top + sy * (frame.clientTop + (parseFloat(style.paddingTop) || 0) + y);
if (!(px >= 0 && py >= 0 && px < view.innerWidth && py < view.innerHeight)) {
  return Object.assign(out, { status: 'outside' });
}
let hit = document.elementFromPoint(px, py);
for (let hop = 0; hit && hit.shadowRoot && hop < GL_MAX_HOPS; hop++) {
  const inner = hit.shadowRoot.elementFromPoint(px, py);
  if (!inner || inner === hit || !glInside(hit, inner)) break;
  hit = inner;
}
if (hit === frame) return Object.assign(out, { status: 'ok', x: px, y: py });
if (!hit) return Object.assign(out, { status: 'outside' });
if (glInside(hit, frame)) return Object.assign(out, { status: 'unmapped' });
return Object.assign(out, { status: 'covered', by: glSummary(glMeaningful(hit), options.cap) });
