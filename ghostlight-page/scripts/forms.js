// Ghostlight form data for perception's `forms` mode: declarations prepended to perceive.js
// (after dom.js) when a connector asks for forms, so other perceptions do not carry them.
//
// glIsFormControl(el, role): form-associated elements (buttons only inside a form),
//   contenteditable hosts and ARIA value widgets; not links, not the options of a select.
// glFormOf(el, role, opts) = {o: owning form's number in this pass|null, on: its
//   name|null, g: nearest fieldset's legend|null, rg: a radio's group name|null,
//   c: {constraints present}, v: 'valid'|first failing ValidityState flag|null (not
//   validated), op: [option label] (selects, at most opts.optionsMax), ot: options cut?,
//   x: holds a value?|null (nothing to hold)}; strings cut to opts.formTextMax UTF-16 units.
//   A value is never read out: `x` only says whether there is one (text entered, a selected
//   option whose value is not empty, a box checked, a file chosen).
// Form-associated elements with a value or an action (an <output>, <fieldset> or <object>
// holds nothing a person fills).
const GL_FORM_TAGS = new Set(['input', 'select', 'textarea', 'button']);
const GL_VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
  'switch', 'slider', 'spinbutton']);
const GL_VALIDITY_FLAGS = ['valueMissing', 'typeMismatch', 'patternMismatch', 'tooLong', 'tooShort',
  'rangeUnderflow', 'rangeOverflow', 'stepMismatch', 'badInput', 'customError'];

function glIsFormControl(el, role) {
  if (role === 'option') return false;
  const tag = el.localName;
  if (tag === 'button' || (tag === 'input' && role === 'button' &&
      ['button', 'submit', 'reset', 'image'].includes((el.getAttribute('type') || '').toLowerCase()))) {
    return !!el.form;
  }
  if (GL_FORM_TAGS.has(tag)) return true;
  if (glEditableRoot(el)) return true;
  return role != null && GL_VALUE_ROLES.has(role);
}

// Whether el holds a value, never reading it out; null when it holds none (a button).
function glFilled(el, role) {
  const tag = el.localName;
  const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
  if (tag === 'button' || ['button', 'submit', 'reset', 'image'].includes(type)) return null;
  if (type === 'checkbox' || type === 'radio') return el.checked === true;
  if (type === 'file') return !!(el.files && el.files.length > 0);
  if (tag === 'select') {
    // A placeholder option (an empty value) is no choice, as `required` sees it.
    return Array.from(el.selectedOptions || []).some((o) => o.value !== '');
  }
  if (tag === 'input' || tag === 'textarea') {
    return el.value !== '' || !!(el.validity && el.validity.badInput);
  }
  const aria = (el.getAttribute('aria-checked') || '').toLowerCase();
  if (role === 'checkbox' || role === 'radio' || role === 'switch') return aria === 'true' || aria === 'mixed';
  if (el.isContentEditable) return glSquash(el.textContent) !== '';
  if (el.hasAttribute('aria-valuenow')) return true;
  return null;
}

// The form's number in this pass, in order of first sight (forms in shadow roots included).
function glFormIndex(form, opts) {
  if (!(opts.glForms instanceof Map)) opts.glForms = new Map();
  if (!opts.glForms.has(form)) opts.glForms.set(form, opts.glForms.size);
  return opts.glForms.get(form);
}

function glFormOf(el, role, opts) {
  const OPTIONS_MAX = Math.max(0, Math.min(100, Number(opts.optionsMax) | 0));
  const FORM_TEXT_MAX = Math.max(1, Number(opts.formTextMax) | 0);
  const formText = (text) => {
    const clean = glSquash(text);
    return clean ? clean.slice(0, FORM_TEXT_MAX) : null;
  };
  const form = el.form || null;
  const tag = el.localName;
  const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
  const attr = (name) => {
    const value = el.getAttribute(name);
    return value == null || value === '' ? undefined : value.slice(0, FORM_TEXT_MAX);
  };
  const count = (name) => {
    const value = el.getAttribute(name);
    const n = value == null ? NaN : Number.parseInt(value, 10);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  const c = {};
  if (el.required === true || (el.getAttribute('aria-required') || '').toLowerCase() === 'true') c.required = true;
  if (tag === 'input') {
    if (attr('min') !== undefined) c.min = attr('min');
    if (attr('max') !== undefined) c.max = attr('max');
    if (attr('step') !== undefined) c.step = attr('step');
  }
  if (tag === 'input' || tag === 'textarea') {
    if (count('minlength') !== undefined) c.minlength = count('minlength');
    if (count('maxlength') !== undefined) c.maxlength = count('maxlength');
    if (tag === 'input' && el.hasAttribute('pattern')) c.pattern = true;
  }
  if ((tag === 'select' || type === 'file' || type === 'email') && el.multiple) c.multiple = true;
  let v = null;
  if (el.willValidate === true && el.validity) {
    v = 'valid';
    if (!el.validity.valid) v = GL_VALIDITY_FLAGS.find((flag) => el.validity[flag]) || 'invalid';
  }
  let op = [];
  let ot = false;
  if (tag === 'select') {
    const options = el.options;
    for (let i = 0; i < options.length; i++) {
      if (op.length >= OPTIONS_MAX) { ot = true; break; }
      const label = formText(options[i].label || options[i].textContent);
      if (label) op.push(label);
    }
  }
  const fieldset = el.closest('fieldset');
  const legend = fieldset ? fieldset.querySelector(':scope > legend') : null;
  return {
    o: form ? glFormIndex(form, opts) : null,
    on: form ? formText(glName(form, 'form', FORM_TEXT_MAX) || form.getAttribute('name') || '') : null,
    g: legend ? formText(glContentText(legend, FORM_TEXT_MAX)) : null,
    rg: type === 'radio' ? formText(el.getAttribute('name') || '') : null,
    c,
    v,
    op,
    ot,
    x: glFilled(el, role),
  };
}

