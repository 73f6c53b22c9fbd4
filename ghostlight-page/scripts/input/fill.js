// Form fill: check every value against its control, then (when asked) set them all. Runs in
// the controls' document, after lib.js.
//
// arguments: [elements[], values[], apply, withState], where apply is true, false, or 'compare': then
// nothing is checked or set, and the answer says whether every control is already as the
// fill would leave it: {status: 'ok', filled: 0, equal} (a detached element or a value that
// does not fit answers 'invalid' as below). The value never leaves the page.
// values[i] is {t: 'text', v: string} | {t: 'checked', v: boolean} | {t: 'number', v: number}
// | {t: 'options', v: string[]} (a multiple-choice list: exactly these options selected, each
// named by its value or label; a single-choice list takes a list of one).
// Every field is checked before anything is set; the first misfit answers
// {status: 'invalid', index, reason} and nothing is touched. With apply, every field is then
// set the way a user's edit shows up to page scripts:
//   - inputs and textareas: focus, the native `value` setter (so frameworks that track the
//     value through an instance setter, like React, see the change), then `input` and
//     `change` events;
//   - selects: focus, select the option (or, for a list value, exactly the options listed),
//     `input` and `change`;
//   - checkboxes, radios, ARIA checkboxes/switches/radios: a click when the state differs;
//   - contenteditable: focus, select its contents, `insertText` (the browser's own editing,
//     with its input events), or the text and an `input` event where that is refused.
// Answers {status: 'ok', filled}, with `state`, the page state (glPageState, composed before
// this script by an adapter that asks for it) read before anything was set, when withState.
// Reasons: 'detached', 'control' (not a fillable control), 'disabled', 'readonly', 'kind'
// (the value's type does not fit the control), 'length' (longer than maxlength), 'format'
// (the input's type refuses the text), 'number' (not a number), 'range' (outside min/max or
// off step for a range), 'option' (no option matches), 'option_disabled', 'single' (a list of
// other than one option for a single-choice list), 'radio_off' (a checked radio cannot be
// unchecked by a user).
const [elements, values, apply, withState] = arguments;
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'date',
  'datetime-local', 'month', 'week', 'time', 'color']);

function kindOf(el) {
  const tag = el.localName;
  if (tag === 'textarea') return 'text';
  if (tag === 'select') return 'select';
  if (tag === 'input') {
    const type = el.type;
    if (type === 'checkbox' || type === 'radio') return type;
    if (type === 'number' || type === 'range') return type;
    return TEXT_TYPES.has(type) ? 'text' : null;
  }
  if (el.isContentEditable) return 'editable';
  const role = glExplicitRole(el);
  if (role === 'checkbox' || role === 'switch' || role === 'radio') return 'aria';
  return null;
}

// What the input's own sanitization makes of text (an empty answer means it refused it).
function probe(el, text, bounds) {
  const p = el.ownerDocument.createElement('input');
  p.type = el.type;
  if (bounds) {
    for (const attribute of ['min', 'max', 'step']) {
      if (el.hasAttribute(attribute)) p.setAttribute(attribute, el.getAttribute(attribute));
    }
  }
  p.value = text;
  return p.value;
}

function numeric(el, value) {
  if (value.t === 'number') return String(value.v);
  if (value.t === 'text') return value.v.trim();
  return null;
}

function matchOption(el, text) {
  const options = Array.from(el.options);
  const wanted = glSquash(text);
  return options.find((o) => o.value === text) ||
    options.find((o) => glSquash(o.label || o.text) === wanted) ||
    options.find((o) => glSquash(o.label || o.text).toLowerCase() === wanted.toLowerCase()) ||
    null;
}

function check(el, value) {
  if (!el || !el.isConnected) return 'detached';
  const kind = kindOf(el);
  if (!kind) return 'control';
  if ((el.matches && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true') return 'disabled';
  switch (kind) {
    case 'text': {
      if (value.t !== 'text') return 'kind';
      if (el.readOnly) return 'readonly';
      if (el.maxLength >= 0 && value.v.length > el.maxLength) return 'length';
      if (el.localName === 'input' && value.v !== '' && probe(el, value.v, false) === '') return 'format';
      return null;
    }
    case 'number':
    case 'range': {
      const text = numeric(el, value);
      if (text === null) return 'kind';
      if (el.readOnly) return 'readonly';
      if (text === '' && kind === 'number' && value.t === 'text') return null;
      const sanitized = probe(el, text, kind === 'range');
      if (sanitized === '') return 'number';
      if (kind === 'range' && Number(sanitized) !== Number(text)) return 'range';
      return null;
    }
    case 'select': {
      const wanted = value.t === 'options' ? value.v : value.t === 'text' ? [value.v] : null;
      if (!wanted) return 'kind';
      if (value.t === 'options' && !el.multiple && wanted.length !== 1) return 'single';
      for (const text of wanted) {
        const option = matchOption(el, text);
        if (!option) return 'option';
        if (option.disabled) return 'option_disabled';
      }
      return null;
    }
    case 'checkbox':
      return value.t === 'checked' ? null : 'kind';
    case 'radio':
      if (value.t !== 'checked') return 'kind';
      return !value.v && el.checked ? 'radio_off' : null;
    case 'aria': {
      if (value.t !== 'checked') return 'kind';
      const on = el.getAttribute('aria-checked') === 'true';
      return glExplicitRole(el) === 'radio' && !value.v && on ? 'radio_off' : null;
    }
    case 'editable':
      return value.t === 'text' ? null : 'kind';
    default:
      return 'control';
  }
}

function events(el, data) {
  const view = el.ownerDocument.defaultView;
  el.dispatchEvent(new view.InputEvent('input', {
    bubbles: true, composed: true, inputType: 'insertReplacementText', data,
  }));
  el.dispatchEvent(new view.Event('change', { bubbles: true }));
}

function set(el, value) {
  const view = el.ownerDocument.defaultView;
  switch (kindOf(el)) {
    case 'text':
    case 'number':
    case 'range': {
      const text = kindOf(el) === 'text' ? value.v : numeric(el, value);
      const proto = el.localName === 'textarea' ? view.HTMLTextAreaElement.prototype : view.HTMLInputElement.prototype;
      el.focus();
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
      events(el, text);
      return;
    }
    case 'select': {
      const chosen = new Set((value.t === 'options' ? value.v : [value.v]).map((text) => matchOption(el, text)));
      el.focus();
      for (const o of Array.from(el.options)) o.selected = chosen.has(o);
      events(el, null);
      return;
    }
    case 'checkbox':
    case 'radio':
      if (el.checked !== value.v) el.click();
      return;
    case 'aria':
      if ((el.getAttribute('aria-checked') === 'true') !== value.v) el.click();
      return;
    case 'editable': {
      el.focus();
      const selection = view.getSelection();
      selection.selectAllChildren(el);
      const doc = el.ownerDocument;
      const done = value.v === '' ? doc.execCommand('delete') : doc.execCommand('insertText', false, value.v);
      if (!done) {
        el.textContent = value.v;
        events(el, value.v);
      }
      return;
    }
    default:
      return;
  }
}

// Whether `el` is already as setting `value` would leave it: null when the value does not
// fit its kind.
function equal(el, value) {
  switch (kindOf(el)) {
    case 'text':
      return value.t === 'text' ? el.value === value.v : null;
    case 'number':
    case 'range': {
      const text = numeric(el, value);
      if (text === null) return null;
      return text === '' ? el.value === '' : el.value !== '' && Number(el.value) === Number(text);
    }
    case 'select': {
      const wanted = value.t === 'options' ? value.v : value.t === 'text' ? [value.v] : null;
      if (!wanted) return null;
      const chosen = new Set(wanted.map((text) => matchOption(el, text)));
      if (chosen.has(null)) return false;
      return Array.from(el.options).every((o) => o.selected === chosen.has(o));
    }
    case 'checkbox':
    case 'radio':
      return value.t === 'checked' ? el.checked === value.v : null;
    case 'aria':
      return value.t === 'checked' ? (el.getAttribute('aria-checked') === 'true') === value.v : null;
    case 'editable':
      return value.t === 'text' ? el.textContent === value.v : null;
    default:
      return null;
  }
}

if (apply === 'compare') {
  let all = true;
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    if (!el || !el.isConnected) return { status: 'invalid', index: i, reason: 'detached' };
    const same = equal(el, values[i]);
    if (same === null) return { status: 'invalid', index: i, reason: kindOf(el) ? 'kind' : 'control' };
    all = all && same;
  }
  return { status: 'ok', filled: 0, equal: all };
}
const stateBefore = withState === true ? glPageState() : null;
for (let i = 0; i < elements.length; i++) {
  const reason = check(elements[i], values[i]);
  if (reason) return { status: 'invalid', index: i, reason };
}
if (apply) {
  for (let i = 0; i < elements.length; i++) set(elements[i], values[i]);
}
return stateBefore === null
  ? { status: 'ok', filled: elements.length }
  : { status: 'ok', filled: elements.length, state: stateBefore };
