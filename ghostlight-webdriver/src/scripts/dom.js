// Ghostlight's one DOM semantics of "shown": prepended to every script that decides whether
// an element is shown or reads shown text (perceive.js, read_text.js, text_present.js,
// element_present.js, frames_here.js; see ops/perception.rs and ops/frames.rs). Function
// declarations local to one Execute Script body: nothing is left on the page. Reads only;
// every walk is bounded.
//
// - glVisible(el): whether el is rendered for a person: CSS-visible (checkVisibility with
//   visibility checked, or the computed style where checkVisibility is missing), not inside
//   an `inert` subtree, and with at least one client rect of non-zero width or height.
//   Off-screen and scrolled-away elements are visible (they are in the page; a scroll shows
//   them); opacity is not considered (a transparent control still takes clicks).
//
// Two uses, one semantics: perception and presence ask glVisible (a control must have a box
// to be acted on); text asks glShownText, which follows the accessibility tree (CSS-hidden
// content is not rendered text, aria-hidden and inert subtrees are left out, but a zero-size
// box's clipped text stays, as screen readers read it).
// - glAriaHidden(el): whether el is marked aria-hidden="true" or inert (such an element and
//   its subtree are not in the accessibility tree, so Ghostlight neither lists nor reads them).
// - glShownText(el): the rendered text of el (its innerText) without the text of subtrees
//   outside the accessibility tree. When el holds no such subtree this is exactly innerText;
//   otherwise only the elements on the way to a hidden subtree are walked, every other child
//   contributes its own innerText, and block-level elements keep their line breaks.

const GL_SHOWN_MAX_ELEMENTS = 20000;
// Subtrees outside the accessibility tree: aria-hidden and inert.
const GL_OUT_OF_TREE = '[aria-hidden="true"],[inert]';

function glVisible(el) {
  if (!el || el.nodeType !== 1) return false;
  if (typeof el.checkVisibility === 'function') {
    if (!el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true })) return false;
  } else {
    const view = el.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(el) : null;
    if (!style || style.display === 'none' || style.visibility === 'hidden') return false;
  }
  if (typeof el.closest === 'function' && el.closest('[inert]')) return false;
  const rects = el.getClientRects();
  for (let i = 0; i < rects.length; i++) {
    if (rects[i].width > 0 || rects[i].height > 0) return true;
  }
  return false;
}

function glAriaHidden(el) {
  return !!el && el.nodeType === 1 && (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert'));
}

function glShownText(el) {
  if (!el) return '';
  const raw = (node) => (node.innerText !== undefined ? node.innerText : node.textContent) || '';
  if (glAriaHidden(el)) return '';
  if (!el.querySelector(GL_OUT_OF_TREE)) return raw(el);
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
    if (node !== el && !node.querySelector(GL_OUT_OF_TREE)) {
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
