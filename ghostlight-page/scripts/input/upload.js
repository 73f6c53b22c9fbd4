// File input check before an upload: the element must be an enabled <input type=file>, taking
// several files when several are sent. When it fits, its current files are cleared (WebDriver
// adds files to the ones already chosen). Runs after lib.js.
//
// arguments: [element, options {count, state, cap}]
// Answers {status: 'ok', summary, state} or {status: 'not_file' | 'disabled' | 'not_multiple'}.
const [element, options] = arguments;
const out = {};
if (options.state) out.state = glPageState();
if (element.localName !== 'input' || element.type !== 'file') return Object.assign(out, { status: 'not_file' });
if (element.disabled) return Object.assign(out, { status: 'disabled' });
if (options.count > 1 && !element.multiple) return Object.assign(out, { status: 'not_multiple' });
element.value = '';
return Object.assign(out, { status: 'ok', summary: glSummary(element, options.cap) });
