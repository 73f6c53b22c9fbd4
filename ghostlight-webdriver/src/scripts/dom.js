// Ghostlight shown text: prepended to the perception and reading scripts (perceive.js,
// read_text.js, text_present.js; see ops/perception.rs). Function declarations local to one
// Execute Script body: nothing is left on the page. Reads only; every walk is bounded.
//
// - glAriaHidden(el): whether el is marked aria-hidden="true" (such an element and its
//   subtree are not in the accessibility tree, so Ghostlight neither lists nor reads them).
// - glShownText(el): the rendered text of el (its innerText) without the text of subtrees
//   marked aria-hidden="true". When el holds no such subtree this is exactly innerText;
//   otherwise only the elements on the way to a hidden subtree are walked, every other child
//   contributes its own innerText, and block-level elements keep their line breaks.

const GL_SHOWN_MAX_ELEMENTS = 20000;

function glAriaHidden(el) {
  return !!el && el.nodeType === 1 && el.getAttribute('aria-hidden') === 'true';
}

function glShownText(el) {
  if (!el) return '';
  const raw = (node) => (node.innerText !== undefined ? node.innerText : node.textContent) || '';
  if (glAriaHidden(el)) return '';
  if (!el.querySelector('[aria-hidden="true"]')) return raw(el);
  const rendered = (node) => typeof node.checkVisibility !== 'function' || node.checkVisibility();
  const block = (node) => {
    const view = node.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(node) : null;
    return !!style && !style.display.startsWith('inline') && style.display !== 'contents';
  };
  const parts = [];
  const stack = [el];
  let elements = 0;
  while (stack.length && elements < GL_SHOWN_MAX_ELEMENTS) {
    const node = stack.pop();
    if (typeof node === 'string') { parts.push(node); continue; }
    if (node.nodeType === 3) { parts.push(node.data.replace(/\s+/g, ' ')); continue; }
    if (node.nodeType !== 1 || glAriaHidden(node)) continue;
    elements++;
    const tag = node.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    if (node !== el && !rendered(node)) continue;
    if (node !== el && !node.querySelector('[aria-hidden="true"]')) {
      const text = raw(node);
      parts.push(block(node) ? '\n' + text + '\n' : text);
      continue;
    }
    if (tag === 'br') { parts.push('\n'); continue; }
    const breaks = node !== el && block(node);
    if (breaks) stack.push('\n');
    for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
    if (breaks) stack.push('\n');
  }
  return parts.join('');
}
