// Attach a replay GIF to a file input, from memory: arguments are [the input element,
// base64 GIF, file name]. The selection becomes exactly this one file (a DataTransfer's
// FileList assigned to `input.files`), then `input` and `change` fire as a user's choice
// would fire them (these events are untrusted: isTrusted is false). Answers false when the
// element is not a file input.
const [input, data, name] = arguments;
if (!input || input.localName !== 'input' || String(input.type).toLowerCase() !== 'file') {
  return false;
}
const raw = atob(data);
const bytes = new Uint8Array(raw.length);
for (let i = 0; i < raw.length; i += 1) {
  bytes[i] = raw.charCodeAt(i);
}
const transfer = new DataTransfer();
transfer.items.add(new File([bytes], name, { type: 'image/gif', lastModified: Date.now() }));
input.files = transfer.files;
input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
input.dispatchEvent(new Event('change', { bubbles: true }));
return true;
