// Keyboard target: focus an element (or find the focused one) before key input, or describe
// the focused element after it. Runs after lib.js.
//
// arguments: [element | null, options {mode, clear, state, cap, guard}]
// mode 'prepare': focus element (when given; file inputs are refused) and check that focus
//   landed on it or inside it; without an element, use the focused element (through shadow
//   roots and same-origin frames). With clear, select the control's whole content so that one
//   Delete key press removes it; `clear` in the answer says whether there was content;
//   `already` whether the element had focus before. With guard (a nonce), arm the key guard
//   on the element (glArmKeyGuard).
// mode 'page': keys for the page itself: refuse ('focused') when an element has focus, else
//   arm the key guard on the page when guard is given.
// mode 'after': describe the focused element, if any.
// Answers {status: 'ok', summary, clear, already, state} or
// {status: 'file' | 'unfocusable' | 'nofocus' | 'focused'}.
// state: the page state (glPageState) when options.state.
const [element, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (options.mode === 'after') {
  const active = glDeepActive(document);
  return Object.assign(out, { status: 'ok', summary: active ? glSummary(active, options.cap) : null });
}
if (options.mode === 'page') {
  if (glDeepActive(document) || (document.activeElement && /^i?frame$/.test(document.activeElement.localName))) {
    return Object.assign(out, { status: 'focused' });
  }
  if (options.guard) glArmKeyGuard(options.guard, null);
  return Object.assign(out, { status: 'ok', summary: null });
}
let target = element;
let already = false;
if (target) {
  if (target.localName === 'input' && target.type === 'file') return Object.assign(out, { status: 'file' });
  already = glInside(target, glDeepActive(target.ownerDocument) || target.ownerDocument.body);
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
if (options.guard) glArmKeyGuard(options.guard, target);
return Object.assign(out, { status: 'ok', summary: glSummary(target, options.cap), clear, already });
