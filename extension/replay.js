// Ghostlight extension: the page that saves a replay as a download (`browser_record` save with
// `download`). The background opens it with a one-time token in its fragment; it asks the
// background for that replay's bytes, clicks an `<a download>` on a Blob URL of them (the
// browser saves the file to its download folder), says so, and is closed by the background.
// The bytes live in this page's memory only, for the moment of the click.
'use strict';

(async () => {
  const api = globalThis.browser ?? globalThis.chrome;
  const token = decodeURIComponent(location.hash.slice(1));
  try {
    const answer = await api.runtime.sendMessage({ type: 'replay_bytes', token });
    if (!answer || typeof answer.data !== 'string') throw new Error('no replay');
    const binary = atob(answer.data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    const url = URL.createObjectURL(new Blob([bytes], { type: 'image/gif' }));
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = String(answer.name);
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
    // The background closes this page; the Blob URL goes with it.
    await api.runtime.sendMessage({ type: 'replay_done', token });
  } catch (_) {
    await api.runtime.sendMessage({ type: 'replay_failed', token }).catch(() => {});
  }
})();
