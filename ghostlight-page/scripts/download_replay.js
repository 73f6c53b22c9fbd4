// Download a replay GIF from this (blank, adapter-owned) tab: arguments are [base64 GIF,
// file name, milliseconds the Blob URL lives].
// The bytes become a Blob URL on an <a download> anchor that is clicked and removed; the
// browser saves the file to its download directory. Nothing leaves the browser. The URL is
// revoked once the download had time to start.
const [data, name, revokeAfterMs] = arguments;
const raw = atob(data);
const bytes = new Uint8Array(raw.length);
for (let i = 0; i < raw.length; i += 1) {
  bytes[i] = raw.charCodeAt(i);
}
const url = URL.createObjectURL(new Blob([bytes], { type: 'image/gif' }));
const anchor = document.createElement('a');
anchor.href = url;
anchor.download = name;
anchor.style.display = 'none';
(document.body || document.documentElement).appendChild(anchor);
anchor.click();
anchor.remove();
setTimeout(() => URL.revokeObjectURL(url), revokeAfterMs);
return bytes.length;
