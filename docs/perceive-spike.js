// Engine-neutral perception. arguments[0] = max items. Returns {items:[...], truncated, scanned, ms}
const MAX = arguments[0] || 80;
const FRAMES = arguments[1] !== false;
const t0 = performance.now();
const ROLES = new Set(['button','link','checkbox','radio','switch','textbox','searchbox','combobox',
  'listbox','option','slider','spinbutton','tab','menuitem','treeitem','heading','img','dialog']);
const INTERACTIVE_ROLES = new Set(['button','link','checkbox','radio','switch','textbox','searchbox',
  'combobox','listbox','option','slider','spinbutton','tab','menuitem','treeitem']);
function implicitRole(el) {
  const tag = el.localName;
  if (tag === 'a' || tag === 'area') return el.hasAttribute('href') ? 'link' : null;
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'select') return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
  if (tag === 'textarea') return 'textbox';
  if (tag === 'input') {
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    switch (t) {
      case 'hidden': return null;
      case 'button': case 'submit': case 'reset': case 'image': return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'search': return el.list ? 'combobox' : 'searchbox';
      case 'file': return 'button';
      default: return el.list ? 'combobox' : 'textbox';
    }
  }
  return null;
}
function roleOf(el) {
  const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
  if (explicit) return ROLES.has(explicit) ? explicit : 'control';
  const r = implicitRole(el);
  if (r) return r;
  if (el.isContentEditable) return 'textbox';
  return 'control';
}
function isCandidate(el) {
  if (implicitRole(el)) return true;
  const r = (el.getAttribute('role') || '').toLowerCase();
  if (INTERACTIVE_ROLES.has(r)) return true;
  if (el.hasAttribute('tabindex') && el.tabIndex >= 0) return true;
  if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
  return false;
}
function visible(el) {
  if (typeof el.checkVisibility === 'function') {
    if (!el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true })) return false;
  } else {
    const cs = el.ownerDocument.defaultView.getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') return false;
  }
  const r = el.getClientRects();
  return r.length > 0 && (r[0].width > 0 || r[0].height > 0);
}
function norm(s) { return (s || '').replace(/\s+/g, ' ').trim().slice(0, 200); }
function textOf(el) {
  // text content excluding editable values
  return norm(el.innerText !== undefined ? el.innerText : el.textContent);
}
function nameOf(el) {
  const doc = el.getRootNode();
  const lb = el.getAttribute('aria-labelledby');
  if (lb) {
    const parts = lb.split(/\s+/).map(id => (doc.getElementById ? doc.getElementById(id) : null)).filter(Boolean).map(textOf);
    if (parts.length) return norm(parts.join(' '));
  }
  const al = el.getAttribute('aria-label');
  if (al && al.trim()) return norm(al);
  if (el.labels && el.labels.length) {
    const s = norm(Array.from(el.labels).map(l => {
      // label text without the nested control's value
      const c = l.cloneNode(true); c.querySelectorAll('input,select,textarea').forEach(n => n.remove());
      return c.textContent;
    }).join(' '));
    if (s) return s;
  }
  const tag = el.localName;
  if (tag === 'input') {
    const t = (el.type || '').toLowerCase();
    if (['button', 'submit', 'reset'].includes(t)) return norm(el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : ''));
    if (t === 'image') return norm(el.alt || 'Submit');
  }
  if (tag === 'img' || tag === 'area') { if (el.alt) return norm(el.alt); }
  if (!['input', 'select', 'textarea'].includes(tag)) { const s = textOf(el); if (s) return s; }
  if (el.title) return norm(el.title);
  if (el.placeholder) return norm(el.placeholder);
  return '';
}
const CRED_AC = /\b(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp)\b/i;
const CRED_NAME = /(pass(word|wd)?|otp|one.?time|totp|2fa|mfa|cvv|cvc|csc|pin\b|card.?number|secret|token)/i;
function credential(el) {
  if (el.localName !== 'input' && el.localName !== 'textarea') return false;
  if ((el.type || '').toLowerCase() === 'password') return true;
  if (CRED_AC.test(el.getAttribute('autocomplete') || '')) return true;
  const hay = [el.name, el.id, el.getAttribute('aria-label')].join(' ');
  return CRED_NAME.test(hay);
}
function states(el) {
  const s = [];
  if (el.disabled || el.getAttribute('aria-disabled') === 'true') s.push('disabled');
  if (el.checked === true || el.getAttribute('aria-checked') === 'true') s.push('checked');
  if (el.getAttribute('aria-expanded') === 'true') s.push('expanded');
  if (el.getAttribute('aria-selected') === 'true' || el.selected === true) s.push('selected');
  if (el.required) s.push('required');
  if (el.readOnly) s.push('readonly');
  if (el.getRootNode().activeElement === el) s.push('focused');
  return s;
}
const items = [];
let scanned = 0, truncated = false, frames = 0;
function walk(root, framePath) {
  // root: Document or ShadowRoot
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    const kids = node.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      const el = kids[i];
      stack.push(el);
    }
    if (node.nodeType !== 1) continue;
    const el = node;
    scanned++;
    if (el.shadowRoot) walk(el.shadowRoot, framePath);
    if (FRAMES && (el.localName === 'iframe' || el.localName === 'frame')) {
      let d = null; try { d = el.contentDocument; } catch (e) { d = null; }
      if (d && d.documentElement && visible(el)) { frames++; walk(d, framePath.concat([frames])); }
    }
    if (items.length >= MAX) { truncated = true; continue; }
    if (!isCandidate(el) || !visible(el)) continue;
    items.push({ el, role: roleOf(el), name: nameOf(el), states: states(el), credential: credential(el), frame: framePath });
  }
}
walk(document, []);
return { items, truncated, scanned, frames, ms: performance.now() - t0,
  doc: { timeOrigin: performance.timeOrigin, url: location.href, readyState: document.readyState } };
