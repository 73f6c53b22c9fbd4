// Files dropped at a viewport point: builds File objects from base64 in the page and
// dispatches dragenter and dragover (and drop, when dragover was accepted; dragleave
// otherwise) at the topmost element there, through open shadow roots and same-origin frames.
// The events are untrusted (isTrusted is false), as no WebDriver command drops files.
// Runs after lib.js.
//
// arguments: [point {x, y}, files [{name, type, data (base64)}], options {state, cap}]
// Answers {status: 'ok', accepted, summary, state} or {status: 'outside'}.
const [point, files, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (!(point.x >= 0 && point.y >= 0 && point.x < window.innerWidth && point.y < window.innerHeight)) {
  return Object.assign(out, { status: 'outside' });
}
const hit = glDeepHit(document, point.x, point.y);
if (!hit) return Object.assign(out, { status: 'outside' });
const view = hit.ownerDocument.defaultView;
const data = new view.DataTransfer();
for (const file of files) {
  const binary = atob(file.data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  data.items.add(new view.File([bytes], file.name, { type: file.type }));
}
const fire = (type) => hit.dispatchEvent(new view.DragEvent(type, {
  bubbles: true, cancelable: true, composed: true, dataTransfer: data, clientX: point.x, clientY: point.y,
}));
fire('dragenter');
const accepted = !fire('dragover');
fire(accepted ? 'drop' : 'dragleave');
return Object.assign(out, { status: 'ok', accepted, summary: glSummary(glMeaningful(hit), options.cap) });
