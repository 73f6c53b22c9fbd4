// Keyboard target: focus an element (or find the focused one) before key input, or describe
// the focused element after it. Runs after lib.js.
//
// arguments: [element | null, options {mode, clear, state, cap}]
// mode 'prepare': focus element (when given; file inputs are refused) and check that focus
//   landed on it or inside it; without an element, use the focused element (through shadow
//   roots and same-origin frames). With clear, select the control's whole content so that one
//   Delete key press removes it; `clear` in the answer says whether there was content.
// mode 'after': describe the focused element, if any.
// Answers {status: 'ok', summary, clear, state} or {status: 'file' | 'unfocusable' | 'nofocus'}.
// state: the page state (glPageState) when options.state.
const [element, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (options.mode === 'after') {
  const active = glDeepActive(document);
  return Object.assign(out, { status: 'ok', summary: active ? glSummary(active, options.cap) : null });
}
let target = element;
if (target) {
  if (target.localName === 'input' && target.type === 'file') return Object.assign(out, { status: 'file' });
  target.focus();
  const active = glDeepActive(target.ownerDocument);
  if (!active || !glInside(target, active)) return Object.assign(out, { status: 'unfocusable' });
} else {
  target = glDeepActive(document);
  if (!target) return Object.assign(out, { status: 'nofocus' });
}
let clear = false;
if (options.clear) {
  const tag = target.localName;
  if (tag === 'input' || tag === 'textarea') {
    clear = String(target.value).length > 0;
    try {
      target.select();
    } catch (_) {
      clear = false;
    }
  } else {
    let host = target;
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    if (host.isContentEditable) {
      clear = host.textContent.length > 0;
      host.ownerDocument.defaultView.getSelection().selectAllChildren(host);
    }
  }
}
return Object.assign(out, { status: 'ok', summary: glSummary(target, options.cap), clear });
