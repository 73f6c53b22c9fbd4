// Ghostlight's one DOM semantics: what is shown, what role an element has and what it is
// called. Prepended (after GL_GENERIC_NAME_CHARS, which the adapter defines from core's name
// bound) to every script that decides whether an element is shown, reads shown text, or names
// an element: perceive.js, read_text.js, text_present.js, element_present.js, frames_here.js,
// and every input script (see `with_dom` in ops/mod.rs). Function declarations local to one
// Execute Script body: nothing is left on the page. Reads only; every walk is bounded.
//
// Shown:
// - glVisible(el): whether el is rendered for a person: CSS-visible (checkVisibility with
//   visibility checked, or the computed style where checkVisibility is missing), not inside
//   an `inert` subtree, and with at least one client rect of non-zero width or height.
//   Off-screen and scrolled-away elements are visible (they are in the page; a scroll shows
//   them); opacity is not considered (a transparent control still takes clicks).
// - glAriaHidden(el): whether el is marked aria-hidden="true" or inert (such an element and
//   its subtree are not in the accessibility tree, so Ghostlight neither lists nor reads them).
// - glShownText(el, skip): the rendered text of el (its innerText) without the text of
//   subtrees matching `skip` (default: those outside the accessibility tree). When el holds no
//   such subtree this is exactly innerText; otherwise only the elements on the way to a
//   skipped subtree are walked, every other child contributes its own innerText, and
//   block-level elements keep their line breaks.
//
// Two uses, one semantics: perception, presence and pointer targets ask glVisible (a control
// must have a box to be acted on); text asks glShownText, which follows the accessibility tree
// (CSS-hidden content is not rendered text, aria-hidden and inert subtrees are left out, but a
// zero-size box's clipped text stays, as screen readers read it).
//
// Roles and names (perception lists them, action receipts report them: the same function
// answers both, so what a model perceives is what a click says it clicked):
// - glRole(el): the explicit role (the first token of `role`, unless presentation/none) or the
//   implicit one (HTML-AAM: links, buttons, fields, landmarks, headings, lists, tables…), an
//   editing host's `textbox`, or null (generic). Core narrows it to its closed set.
// - glIsControl(el, role): interactive: an interactive role, an editing host, a draggable
//   element or a focusable one (tabindex ≥ 0).
// - glName(el, role, cap): the accessible name, never an editable value, in this order:
//   aria-labelledby (each referenced element's aria-label, else its shown text, hidden
//   referenced elements included), aria-label, labels (their shown text without nested
//   fields), a button input's value (Submit/Reset by default), an image input's alt (Submit),
//   an image's alt, a fieldset's legend, a table's caption, a figure's figcaption, content for
//   roles named by their content (and a generic element's text when it is short: a
//   container's text is its content, not its name; a child image's alt or aria-label when
//   there is no text), title, placeholder. Cut to `cap` UTF-16 units.
// - glSummary(el, cap): {role, name} of el, as action receipts carry it.

const GL_SHOWN_MAX_ELEMENTS = 20000;
// Subtrees outside the accessibility tree: aria-hidden and inert.
const GL_OUT_OF_TREE = '[aria-hidden="true"],[inert]';
// Form fields, whose values are never names or text of their container.
const GL_FIELDS = 'input,select,textarea,[contenteditable]:not([contenteditable="false"])';
// Element ids read from one aria-labelledby.
const GL_MAX_LABEL_IDS = 16;
// Label elements read for one control.
const GL_MAX_LABELS = 8;
// Roles a person interacts with.
const GL_INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'textbox',
  'searchbox', 'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'treeitem']);
// Roles named by their content (WAI-ARIA "name from content").
const GL_NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'heading', 'cell', 'gridcell',
  'columnheader', 'rowheader', 'row', 'tooltip']);
// Roles whose content is a value the user edits.
const GL_EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);
// Sectioning elements inside which header and footer are no landmarks.
const GL_SCOPING = 'article,aside,main,nav,section';

// ---- shown ----------------------------------------------------------------------------------

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

function glShownText(el, skip) {
  if (!el) return '';
  const leave = skip || GL_OUT_OF_TREE;
  const raw = (node) => (node.innerText !== undefined ? node.innerText : node.textContent) || '';
  if (glAriaHidden(el)) return '';
  if (!el.querySelector(leave)) return raw(el);
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
    if (node !== el && node.matches(leave)) continue;
    elements++;
    const tag = node.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    if (node !== el && !rendered(node)) continue;
    if (node !== el && !node.querySelector(leave)) {
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

// ---- text helpers ---------------------------------------------------------------------------

// Cut to at most `max` UTF-16 units without splitting a surrogate pair.
function glCut(s, max) {
  if (s.length <= max) return s;
  let end = max;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return s.slice(0, end);
}

// Whitespace runs become one space; trimmed.
function glSquash(s) {
  return (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();
}

function glClean(s, max) {
  return glCut(glSquash(s), max);
}

// The shown text of el without nested fields (their values or options), squashed and cut.
function glContentText(el, max) {
  return glClean(glShownText(el, GL_OUT_OF_TREE + ',' + GL_FIELDS), max);
}

// ---- roles ----------------------------------------------------------------------------------

// The first token of the role attribute, lowercased ('' when there is none).
function glExplicitRole(el) {
  return (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
}

// Named by the page itself (aria-label, aria-labelledby or title).
function glHasAuthorName(el) {
  const label = el.getAttribute('aria-label');
  return !!((label && label.trim()) || el.hasAttribute('aria-labelledby') || el.hasAttribute('title'));
}

// The topmost element of a contenteditable region (its editing host).
function glEditableRoot(el) {
  return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
}

function glInputRole(el) {
  switch ((el.getAttribute('type') || 'text').toLowerCase()) {
    case 'hidden': return null;
    case 'button': case 'submit': case 'reset': case 'image': case 'file': case 'color':
      return 'button';
    case 'checkbox': return 'checkbox';
    case 'radio': return 'radio';
    case 'range': return 'slider';
    case 'number': return 'spinbutton';
    case 'search': return el.list ? 'combobox' : 'searchbox';
    default: return el.list ? 'combobox' : 'textbox';
  }
}

function glImplicitRole(el) {
  switch (el.localName) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'button': case 'summary': return 'button';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'textarea': return 'textbox';
    case 'input': return glInputRole(el);
    case 'option': {
      // An option of a drop-down is part of its combobox's value, not a target of its own.
      const select = el.closest('select');
      return select && (select.multiple || select.size > 1) ? 'option' : null;
    }
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'img': return el.getAttribute('alt') === '' ? null : 'img';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'aside': return 'complementary';
    case 'header': return el.parentElement && el.parentElement.closest(GL_SCOPING) ? null : 'banner';
    case 'footer': return el.parentElement && el.parentElement.closest(GL_SCOPING) ? null : 'contentinfo';
    case 'section': return glHasAuthorName(el) ? 'region' : null;
    case 'form': return 'form';
    case 'search': return 'search';
    case 'ul': case 'ol': case 'menu': return 'list';
    case 'li': return 'listitem';
    case 'table': return 'table';
    case 'dialog': return 'dialog';
    case 'article': return 'article';
    case 'figure': return 'figure';
    case 'p': return 'paragraph';
    case 'td': return 'cell';
    case 'th': return (el.getAttribute('scope') || '').toLowerCase() === 'row' ? 'rowheader' : 'columnheader';
    case 'blockquote': return 'blockquote';
    case 'caption': return 'caption';
    case 'dt': return 'term';
    case 'dd': return 'definition';
    case 'fieldset': case 'details': return 'group';
    default: return null;
  }
}

function glRole(el) {
  const explicit = glExplicitRole(el);
  if (explicit && explicit !== 'presentation' && explicit !== 'none') return explicit;
  const implicit = glImplicitRole(el);
  if (implicit) return implicit;
  if (glEditableRoot(el)) return 'textbox';
  return null;
}

function glIsControl(el, role) {
  if (role && GL_INTERACTIVE_ROLES.has(role)) return true;
  if (glEditableRoot(el)) return true;
  if (el.getAttribute('draggable') === 'true') return true;
  return el.hasAttribute('tabindex') && el.tabIndex >= 0 && el.localName !== 'iframe';
}

// Whether el holds a value the user edits (its text is never its name).
function glEditable(el, role) {
  const tag = el.localName;
  return tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable ||
    (role != null && GL_EDITABLE_ROLES.has(role));
}

// ---- names ----------------------------------------------------------------------------------

// The alt of a child image, or the aria-label of a child, for elements without text.
function glChildAltName(el, cap) {
  const inner = el.querySelector('img[alt]:not([alt=""]),[aria-label]');
  if (!inner) return '';
  return glClean(inner.getAttribute('aria-label') || inner.getAttribute('alt'), cap);
}

// The text of the direct child matching `selector` (legend, caption, figcaption), or ''.
function glChildText(el, selector, cap) {
  const child = el.querySelector(':scope > ' + selector);
  return child ? glContentText(child, cap) : '';
}

function glName(el, role, cap) {
  const labelledBy = (el.getAttribute('aria-labelledby') || '').trim();
  if (labelledBy) {
    const scope = el.getRootNode();
    const parts = [];
    for (const id of labelledBy.split(/\s+/).slice(0, GL_MAX_LABEL_IDS)) {
      const target = scope && scope.getElementById ? scope.getElementById(id) : null;
      if (!target) continue;
      const label = glClean(target.getAttribute('aria-label'), cap);
      const text = label || (target === el ? '' : glContentText(target, cap));
      if (text) parts.push(text);
    }
    const joined = glClean(parts.join(' '), cap);
    if (joined) return joined;
  }
  const ariaLabel = glClean(el.getAttribute('aria-label'), cap);
  if (ariaLabel) return ariaLabel;
  if (el.labels && el.labels.length) {
    const labels = Array.from(el.labels).slice(0, GL_MAX_LABELS);
    const text = glClean(labels.map((label) => glContentText(label, cap)).join(' '), cap);
    if (text) return text;
  }
  const tag = el.localName;
  if (tag === 'input') {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (type === 'button' || type === 'submit' || type === 'reset') {
      // A button's value is its label, not something the user edits.
      const value = glClean(el.getAttribute('value'), cap);
      if (value) return value;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    if (type === 'image') return glClean(el.getAttribute('alt'), cap) || 'Submit';
  }
  let own = '';
  if (tag === 'img' || tag === 'area') own = glClean(el.getAttribute('alt'), cap);
  else if (tag === 'fieldset') own = glChildText(el, 'legend', cap);
  else if (tag === 'table') own = glChildText(el, 'caption', cap);
  else if (tag === 'figure') own = glChildText(el, 'figcaption', cap);
  if (own) return own;
  if (!glEditable(el, role) && tag !== 'body' && tag !== 'html') {
    if (role && GL_NAME_FROM_CONTENT.has(role)) {
      const text = glContentText(el, cap) || glChildAltName(el, cap);
      if (text) return text;
    } else if (!role) {
      // A generic element's text names it only when it is short.
      const text = glContentText(el, GL_GENERIC_NAME_CHARS + 1);
      if (text.length <= GL_GENERIC_NAME_CHARS) {
        const name = text || glChildAltName(el, cap);
        if (name) return glCut(name, cap);
      }
    }
  }
  const title = glClean(el.getAttribute('title'), cap);
  if (title) return title;
  const placeholder = glClean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder'), cap);
  if (placeholder) return placeholder;
  return null;
}

function glSummary(el, cap) {
  const role = glRole(el);
  return { role: role || 'generic', name: glName(el, role, cap) };
}
