// HTML5 drag and drop by script events, for Firefox, where WebDriver Actions start an HTML5
// drag but never drop it (docs/webdriver-findings.md §4). Runs after lib.js.
//
// arguments: [source element | null, source point {x, y} | null,
//             destination element | null, destination point {x, y} | null]
// The source is the element (or the element at the point) or its draggable="true" ancestor;
// the destination is the element, or the topmost element at the point. One DataTransfer is
// shared by dragstart, dragenter, dragover, drop and dragend, as in a real drag. The events
// are untrusted (isTrusted is false).
// Answers {status: 'ok', dropped} or {status: 'nosource' | 'notarget'}.
const [srcEl, srcPoint, dstEl, dstPoint] = arguments;
const hitAt = (p) => (p ? glDeepHit(document, p.x, p.y) : null);
const grabbed = srcEl || hitAt(srcPoint);
const source = grabbed ? glDraggable(grabbed) || grabbed : null;
if (!source) return { status: 'nosource' };
const target = dstEl || hitAt(dstPoint);
if (!target) return { status: 'notarget' };
const centre = (el, p) => {
  if (p) return { clientX: p.x, clientY: p.y };
  const r = el.getBoundingClientRect();
  return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
};
const view = source.ownerDocument.defaultView;
const data = new view.DataTransfer();
const fire = (el, type, at) => el.dispatchEvent(new (el.ownerDocument.defaultView.DragEvent)(type,
  Object.assign({ bubbles: true, cancelable: true, composed: true, dataTransfer: data }, at)));
const from = centre(source, srcEl ? null : srcPoint);
const to = centre(target, dstEl ? null : dstPoint);
if (!fire(source, 'dragstart', from)) return { status: 'ok', dropped: false };
fire(target, 'dragenter', to);
const accepted = !fire(target, 'dragover', to);
if (accepted) {
  fire(target, 'drop', to);
} else {
  fire(target, 'dragleave', to);
}
fire(source, 'dragend', to);
return { status: 'ok', dropped: accepted };
