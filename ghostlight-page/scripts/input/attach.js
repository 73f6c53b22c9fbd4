// Files attached to a file input from memory, for a connector that cannot drive the file
// chooser (the browser extension): File objects built from base64 in the input's realm, and
// a DataTransfer's files assigned to `input.files` (the selection becomes exactly these
// files); then `input` and `change` fire, bubbling, as a user's choice fires them. The events
// are untrusted (isTrusted is false). Runs after upload.js's checks passed for the element.
//
// arguments: [element, files [{name, type, data (base64)}]]
// Answers the number of files the input holds afterwards.
const [input, files] = arguments;
const view = input.ownerDocument.defaultView;
const transfer = new view.DataTransfer();
for (const file of files) {
  const raw = atob(file.data);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  transfer.items.add(new view.File([bytes], file.name, { type: file.type, lastModified: Date.now() }));
}
input.files = transfer.files;
input.dispatchEvent(new view.Event('input', { bubbles: true, composed: true }));
input.dispatchEvent(new view.Event('change', { bubbles: true }));
return input.files.length;
