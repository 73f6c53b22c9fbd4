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
if (!frame.getClientRects().length) return Object.assign(out, { status: 'outside' });
const place = glFramePlace(frame);
if (place.status !== 'ok') return Object.assign(out, { status: place.status });
const px = place.x + place.sx * x;
const py = place.y + place.sy * y;
if (!(px >= 0 && py >= 0 && px < view.innerWidth && py < view.innerHeight)) {
  return Object.assign(out, { status: 'outside' });
}
const hit = glShadowHit(document, px, py);
if (hit === frame) return Object.assign(out, { status: 'ok', x: px, y: py });
if (!hit) return Object.assign(out, { status: 'outside' });
if (glInside(hit, frame)) return Object.assign(out, { status: 'unmapped' });
return Object.assign(out, { status: 'covered', by: glSummary(glMeaningful(hit), options.cap) });
