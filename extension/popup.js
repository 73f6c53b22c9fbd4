// Ghostlight popup: shows the connection and lets the person pause or disconnect Ghostlight
// and set the preserve-tabs interlock. Settings live in storage.local (`mode`,
// `preserveTabs`); the background applies them as they change.
'use strict';

const api = globalThis.browser ?? globalThis.chrome;
const el = (id) => document.getElementById(id);

const SENTENCES = {
  connected: 'Connected to Ghostlight on this computer.',
  connecting: 'Waiting for the Ghostlight server…',
  disconnected: 'Disconnected: Ghostlight cannot reach this browser.',
};

async function refresh() {
  let status = null;
  try {
    status = await api.runtime.sendMessage({ type: 'status' });
  } catch (_) {
    status = null;
  }
  if (!status) {
    el('state').textContent = 'The extension is starting…';
    return;
  }
  // A question Ghostlight asks the person (never the page, never the model): one call's yes.
  asking = status.question ?? null;
  el('confirm').hidden = !asking;
  el('question').textContent = asking ? asking.text : '';
  const paused = status.mode === 'paused';
  el('state').textContent = paused ? 'Paused: Ghostlight’s requests are refused.' : SENTENCES[status.connection];
  // Why the server refused this extension, when it did (a version mismatch, with its remedy).
  const problem = status.connection === 'connected' ? null : status.lastError;
  el('problem').hidden = !problem;
  el('problem').textContent = problem ?? '';
  el('driven').textContent = status.driven === 1 ? 'Ghostlight drives 1 tab.' : `Ghostlight drives ${status.driven} tabs.`;
  el('pause').textContent = paused ? 'Resume' : 'Pause';
  el('pause').disabled = status.mode === 'disconnected';
  el('disconnect').textContent = status.mode === 'disconnected' ? 'Connect' : 'Disconnect';
  el('preserve').checked = status.preserveTabs === true;
}

/** The question shown, { id, text }, or null. */
let asking = null;

async function answer(yes) {
  if (!asking) return;
  try {
    await api.runtime.sendMessage({ type: 'answer', id: asking.id, yes });
  } catch (_) {
    // The background is gone: the question went with it.
  }
  await refresh();
}

el('allow').addEventListener('click', () => answer(true));
el('deny').addEventListener('click', () => answer(false));

async function setMode(next) {
  await api.storage.local.set({ mode: next });
  await refresh();
}

el('pause').addEventListener('click', async () => {
  const { mode } = await api.storage.local.get('mode');
  await setMode(mode === 'paused' ? 'active' : 'paused');
});
el('disconnect').addEventListener('click', async () => {
  const { mode } = await api.storage.local.get('mode');
  await setMode(mode === 'disconnected' ? 'active' : 'disconnected');
});
el('preserve').addEventListener('change', async (event) => {
  await api.storage.local.set({ preserveTabs: event.target.checked });
});

refresh();
setInterval(refresh, 1000);
