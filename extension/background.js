// Ghostlight extension: the background (a service worker on Chromium, an event page on Firefox).
//
// It opens one native-messaging port to the Ghostlight native host (`ghostlight.native_host`),
// which relays to the Ghostlight server on this computer. It says hello, then answers the
// server's requests by id:
//
//   server → here  {type: 'welcome'}                       (the server accepted the hello)
//                  {type: 'request', id, op, args}
//   here → server  {type: 'hello', protocol, engine, extension}
//                  {type: 'result', id, value}
//                  {type: 'error', id, code, message, effect, detail?}
//
// The port reconnects with backoff when the host or server goes away. The popup pauses
// Ghostlight (every request is refused with `paused`) or disconnects it (no port until the
// person connects again); both live in `storage.local` (`mode`), beside the preserve-tabs
// interlock (`preserveTabs`): while it is on, closing a tab is refused with `tab_preserved`.
// Tabs Ghostlight drives are marked: a "Ghostlight" tab group where the engine has groups,
// and a badge on the toolbar button for the tab everywhere.
'use strict';

const api = globalThis.browser ?? globalThis.chrome;
const HOST = 'ghostlight.native_host';
const PROTOCOL = 1;
const ENGINE = typeof globalThis.browser !== 'undefined' && typeof globalThis.browser.runtime.getBrowserInfo === 'function'
  ? 'firefox'
  : 'chromium';
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 10000;
/** The longest wait the server may ask for; anything longer is cut to it. */
const MAX_WAIT_MS = 120000;
const POLL_MS = 50;
const GROUP_TITLE = 'Ghostlight';
const BADGE = 'GL';

// ---- errors ------------------------------------------------------------------------------

/** An answer the server maps onto a port error: a closed `code` and whether anything happened. */
class GlError extends Error {
  constructor(code, message, effect = 'none', detail = undefined) {
    super(message);
    this.code = code;
    this.effect = effect;
    this.detail = detail;
  }
}

/** The wire form of any failure; browser messages are kept for operators only. */
function wireError(error) {
  if (error instanceof GlError) {
    return { code: error.code, message: error.message, effect: error.effect, detail: error.detail };
  }
  const message = String(error && error.message ? error.message : error);
  if (/no tab with id|invalid tab id|tab .* not found/i.test(message)) {
    return { code: 'tab_gone', message: 'the tab is gone', effect: 'none' };
  }
  return { code: 'browser_error', message, effect: 'unknown' };
}

// ---- settings and state ------------------------------------------------------------------

/** 'active' | 'paused' | 'disconnected', chosen by the person in the popup. */
let mode = 'active';
/** The preserve-tabs interlock: while on, Ghostlight cannot close tabs. */
let preserveTabs = false;
/** 'connecting' | 'connected' | 'disconnected'. */
let connection = 'connecting';
let lastError = null;
let port = null;
let backoff = BACKOFF_FIRST_MS;
let retryTimer = null;
/** Tabs Ghostlight drives (ids), for the popup's count. */
const driven = new Set();
/** Loads started per tab (`loading` updates), so a wait knows a new load began. */
const loads = new Map();

api.tabs.onUpdated.addListener((tabId, info) => {
  if (info.status === 'loading') loads.set(tabId, (loads.get(tabId) ?? 0) + 1);
  // A navigation clears the tab's own badge on some engines: put it back.
  if (info.status === 'complete' && driven.has(tabId)) badge(tabId);
});
api.tabs.onRemoved.addListener((tabId) => {
  loads.delete(tabId);
  driven.delete(tabId);
});

api.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local') return;
  if (changes.preserveTabs) preserveTabs = changes.preserveTabs.newValue === true;
  if (changes.mode) applyMode(changes.mode.newValue);
});

function applyMode(next) {
  mode = next === 'paused' || next === 'disconnected' ? next : 'active';
  if (mode === 'disconnected') {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    if (port) {
      const open = port;
      port = null;
      open.disconnect();
    }
    connection = 'disconnected';
  } else if (!port && !retryTimer) {
    backoff = BACKOFF_FIRST_MS;
    connect();
  }
}

// The popup (a toolbar popup, or popup.html in a tab) asks for the state; settings it changes
// travel through storage. Only the extension's own pages are answered.
api.runtime.onMessage.addListener((message, sender, reply) => {
  const ownPage = sender.id === api.runtime.id && typeof sender.url === 'string' && sender.url.startsWith(api.runtime.getURL(''));
  if (!ownPage || !message || message.type !== 'status') return false;
  reply({ connection, mode, preserveTabs, driven: driven.size, lastError, engine: ENGINE });
  return false;
});

// ---- the native port ----------------------------------------------------------------------

function connect() {
  retryTimer = null;
  if (mode === 'disconnected' || port) return;
  connection = 'connecting';
  let opened;
  try {
    opened = api.runtime.connectNative(HOST);
  } catch (error) {
    retry(String(error));
    return;
  }
  port = opened;
  opened.onMessage.addListener((message) => receive(opened, message));
  opened.onDisconnect.addListener(() => {
    const error = (api.runtime.lastError && api.runtime.lastError.message) || (opened.error && opened.error.message) || null;
    if (port === opened) {
      port = null;
      retry(error);
    }
  });
  opened.postMessage({ type: 'hello', protocol: PROTOCOL, engine: ENGINE, extension: api.runtime.getManifest().version });
}

function retry(error) {
  lastError = error;
  if (mode === 'disconnected') {
    connection = 'disconnected';
    return;
  }
  connection = 'connecting';
  if (retryTimer) return;
  const delay = backoff;
  backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
  retryTimer = setTimeout(connect, delay);
}

function receive(from, message) {
  if (!message || typeof message !== 'object') return;
  if (message.type === 'welcome') {
    connection = 'connected';
    lastError = null;
    backoff = BACKOFF_FIRST_MS;
    return;
  }
  if (message.type !== 'request' || !Number.isSafeInteger(message.id)) return;
  const { id, op, args } = message;
  answer(op, args ?? {}).then(
    (value) => send(from, { type: 'result', id, value: value === undefined ? null : value }),
    (error) => send(from, { type: 'error', id, ...wireError(error) }),
  );
}

function send(to, message) {
  if (port !== to) return; // that connection is gone: the server answers its calls itself
  try {
    to.postMessage(message);
  } catch (_) {
    // The port closed meanwhile; onDisconnect reconnects.
  }
}

async function answer(op, args) {
  if (mode === 'paused') throw new GlError('paused', 'the person paused Ghostlight in the extension');
  const handler = Object.prototype.hasOwnProperty.call(OPS, op) ? OPS[op] : null;
  if (!handler) throw new GlError('unsupported', `the extension has no operation ${String(op)}`);
  await refuseOwnPages(op, args);
  return handler(args);
}

/** Operations that may concern a tab showing the extension's own pages (they only look or close). */
const HARMLESS_ON_OWN_PAGES = new Set(['tabs_list', 'page', 'tab_focus', 'tab_close']);

/**
 * The extension's pages (its popup) hold the person's controls: Ghostlight never opens,
 * navigates to, reads, captures or scripts them, so a model cannot turn its own interlocks off.
 */
async function refuseOwnPages(op, args) {
  const own = (url) => typeof url === 'string' && url.startsWith(api.runtime.getURL(''));
  let shown = null;
  if (!HARMLESS_ON_OWN_PAGES.has(op) && Number.isSafeInteger(args.tab)) {
    const tab = await getTab(args.tab);
    shown = tab.pendingUrl || tab.url;
  }
  if (own(args.url) || own(shown)) {
    throw new GlError('own_page', "the extension's own pages are the person's controls");
  }
}

// ---- helpers -----------------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bounded = (ms) => Math.min(Math.max(Number(ms) || 0, 0), MAX_WAIT_MS);

async function getTab(tabId) {
  try {
    return await api.tabs.get(tabId);
  } catch (_) {
    throw new GlError('tab_gone', 'the tab is gone');
  }
}

function badge(tabId) {
  try {
    api.action.setBadgeText({ tabId, text: BADGE }).catch(() => {});
    api.action.setBadgeBackgroundColor({ tabId, color: '#5b3cc4' }).catch(() => {});
  } catch (_) {
    // No toolbar button (headless): the group, where there is one, marks the tab.
  }
}

/** Mark a tab Ghostlight drives: its badge, and the "Ghostlight" group of its window. */
async function mark(tabId) {
  driven.add(tabId);
  badge(tabId);
  if (typeof api.tabs.group !== 'function' || !api.tabGroups) return;
  try {
    const tab = await api.tabs.get(tabId);
    const [group] = await api.tabGroups.query({ windowId: tab.windowId, title: GROUP_TITLE });
    if (group && tab.groupId === group.id) return;
    if (group) {
      await api.tabs.group({ groupId: group.id, tabIds: [tabId] });
    } else {
      const groupId = await api.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      await api.tabGroups.update(groupId, { title: GROUP_TITLE, color: 'purple' });
    }
  } catch (_) {
    // Groups refused here (a popup window, headless): the badge marks the tab.
  }
}

/** Run `func(...args)` in the tab's top document, in the extension's isolated world. */
async function inTab(tabId, func, args = []) {
  const [first] = await api.scripting.executeScript({ target: { tabId }, func, args });
  if (!first) throw new GlError('browser_error', 'the script gave no answer', 'none');
  return first.result;
}

// ---- page functions (run in the page; each must stand alone) ----------------------------

/** The page's state; the document identity is a nonce kept in this extension's world. */
function glPageState() {
  const KEY = '__ghostlightDocument';
  if (typeof globalThis[KEY] !== 'string') {
    let nonce = '';
    try {
      nonce = crypto.randomUUID();
    } catch (_) {
      nonce = String(Math.random()).slice(2) + String(Math.random()).slice(2);
    }
    globalThis[KEY] = nonce;
  }
  let status = 0;
  try {
    const entry = performance.getEntriesByType('navigation')[0];
    status = entry && typeof entry.responseStatus === 'number' ? entry.responseStatus : 0;
  } catch (_) {
    status = 0;
  }
  return {
    url: String(location.href),
    title: String(document.title),
    ready: String(document.readyState),
    document: `${globalThis[KEY]}:${performance.timeOrigin}`,
    status,
  };
}

/** The page's visible text, normalized (lines trimmed, runs of blanks one space). */
function glVisibleText(max) {
  const root = document.body || document.documentElement;
  const raw = root ? root.innerText : '';
  const text = String(raw ?? '')
    .split(/\r\n|\r|\n|\u2028|\u2029/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  let end = Math.min(text.length, Math.max(0, Math.floor(Number(max) || 0)));
  const code = text.charCodeAt(end - 1);
  if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: text.length > end };
}

/** Whether the page's visible text contains `needle` (case-insensitive). */
function glTextPresent(needle) {
  const root = document.body || document.documentElement;
  const text = String((root && root.innerText) ?? '').replace(/\s+/g, ' ').toLowerCase();
  return text.includes(String(needle).replace(/\s+/g, ' ').toLowerCase());
}

/** The window's inner size, device scale and scroll offsets. */
function glGeometry() {
  return {
    viewport_width: Math.round(window.innerWidth),
    viewport_height: Math.round(window.innerHeight),
    device_scale: window.devicePixelRatio,
    scroll_x: window.scrollX,
    scroll_y: window.scrollY,
  };
}

/**
 * Resolves once the page is visible and has painted twice since (bounded: a page that never
 * paints answers after a second), so a capture right after selecting the tab shows it.
 */
function glPainted() {
  return new Promise((resolve) => {
    const done = () => resolve(document.visibilityState === 'visible');
    const timer = setTimeout(done, 1000);
    const twice = () => requestAnimationFrame(() => requestAnimationFrame(() => {
      clearTimeout(timer);
      done();
    }));
    if (document.visibilityState === 'visible') {
      twice();
    } else {
      document.addEventListener('visibilitychange', twice, { once: true });
    }
  });
}

/** The document's URL (run in every frame). */
function glFrameUrl() {
  return String(location.href);
}

/**
 * Run a caller's source in the page's main world (engines without `chrome.debugger`): as a
 * program (completion value), else as an async function body, else as a parenthesised
 * expression. A prefix statement marks the start, so a SyntaxError the running script throws
 * is never taken for a parse error. The value goes through `scrubSource` (`glScrub`'s source).
 */
function glRunInPage(source, scrubSource) {
  const flag = 'glScriptStarted' + Math.random().toString(36).slice(2);
  const scrub = (0, eval)('(' + scrubSource + ')');
  const describe = (e, ran) => {
    let name = 'Error';
    let message = '';
    try {
      name = e !== null && typeof e === 'object' && typeof e.name === 'string' ? e.name : typeof e;
      message = e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
    } catch (_) {}
    return { error: { name, message, ran } };
  };
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  Object.defineProperty(globalThis, flag, { value: false, writable: true, configurable: true });
  let value;
  try {
    value = (0, eval)('void (globalThis[' + JSON.stringify(flag) + '] = true);\n' + source);
  } catch (e) {
    const started = globalThis[flag];
    delete globalThis[flag];
    if (started || !(e instanceof SyntaxError)) return describe(e, true);
    let body = null;
    let failure = e;
    try {
      body = new AsyncFunction(source);
    } catch (bodyError) {
      failure = bodyError;
      try {
        body = new AsyncFunction('return (' + source + '\n);');
      } catch (_) {}
    }
    if (body === null) return describe(failure, false);
    try {
      value = body.call(globalThis);
    } catch (thrown) {
      return describe(thrown, true);
    }
  }
  delete globalThis[flag];
  return Promise.resolve(value).then((v) => ({ value: scrub(v) }), (e) => describe(e, true));
}

// ---- page state and loads ----------------------------------------------------------------

/** What a tab shows; a page scripts cannot reach (browser pages, error pages) from the tab. */
async function pageOf(tab) {
  try {
    const state = await inTab(tab.id, glPageState);
    if (state && typeof state.url === 'string') return state;
  } catch (error) {
    const message = String(error && error.message ? error.message : error);
    if (/no tab with id/i.test(message)) throw new GlError('tab_gone', 'the tab is gone');
    return fallbackState(tab, /error page/i.test(message));
  }
  return fallbackState(tab, false);
}

function fallbackState(tab, errorPage) {
  const url = tab.url || tab.pendingUrl || 'about:blank';
  return {
    url,
    title: tab.title || '',
    ready: tab.status === 'complete' ? 'complete' : 'loading',
    document: `tab-${tab.id}:${url}`,
    status: 0,
    error_page: errorPage,
  };
}

/**
 * Wait (bounded) until a load that began after `before` loads finished in the tab and the tab
 * shows another document than `from` (a late update of the previous load is not this one).
 */
async function settle(tabId, before, from, timeoutMs) {
  const deadline = Date.now() + bounded(timeoutMs);
  for (;;) {
    const tab = await getTab(tabId);
    if ((loads.get(tabId) ?? 0) > before && tab.status === 'complete') {
      const page = await pageOf(tab);
      if (from === null || page.document !== from) return page;
    }
    if (Date.now() >= deadline) throw new GlError('timeout', 'the page did not finish loading in time', 'unknown');
    await sleep(POLL_MS);
  }
}

/** The document a tab shows now (before a navigation). */
async function documentOf(tabId) {
  return (await pageOf(await getTab(tabId))).document;
}

async function settledPage(tabId, before, from, timeoutMs) {
  const page = await settle(tabId, before, from, timeoutMs);
  await mark(tabId);
  return page;
}

// ---- geometry and capture ----------------------------------------------------------------

async function geometryOf(tabId) {
  const tab = await getTab(tabId);
  const [inner, zoom, win] = await Promise.all([
    inTab(tabId, glGeometry),
    api.tabs.getZoom(tabId).catch(() => 1),
    api.windows.get(tab.windowId),
  ]);
  return {
    ...inner,
    window_width: win.width ?? inner.viewport_width,
    window_height: win.height ?? inner.viewport_height,
    zoom_percent: Math.round(zoom * 100),
  };
}

// ---- running a caller's script -----------------------------------------------------------

/**
 * A script's value as JSON: DOM references become marker strings (`[element]`, `[shadow root]`,
 * `[frame]`, `[window]`), functions, symbols and cycles `null`, big integers strings.
 */
function glScrub(value) {
  const seen = new WeakSet();
  const walk = (v) => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return null;
    if (typeof v === 'bigint') return String(v);
    if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? null : v;
    if (typeof Window !== 'undefined' && v instanceof Window) return v === window ? '[window]' : '[frame]';
    if (typeof ShadowRoot !== 'undefined' && v instanceof ShadowRoot) return '[shadow root]';
    if (typeof Node !== 'undefined' && v instanceof Node) return '[element]';
    if (seen.has(v)) return null;
    seen.add(v);
    if (Array.isArray(v)) return v.map(walk);
    const out = {};
    for (const key of Object.keys(v)) out[key] = walk(v[key]);
    return out;
  };
  return walk(value);
}

/** The value of a DevTools remote object, scrubbed in the page, then released. */
async function remoteValue(send, result) {
  if (!result.objectId) return result.value === undefined ? null : result.value;
  const scrubbed = await send('Runtime.callFunctionOn', {
    objectId: result.objectId,
    functionDeclaration: `function () { return (${glScrub.toString()})(this); }`,
    returnByValue: true,
  });
  await send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  return scrubbed.result && scrubbed.result.value !== undefined ? scrubbed.result.value : null;
}

/** How a DevTools exception reads: its name, its message, and whether the script ran. */
function cdpFailure(details, ran) {
  const exception = details.exception || {};
  const description = String(exception.description ?? exception.value ?? details.text ?? 'Error');
  const firstLine = description.split('\n')[0];
  const at = firstLine.indexOf(': ');
  const name = exception.className || (at > 0 ? firstLine.slice(0, at) : 'Error');
  const message = at > 0 ? firstLine.slice(at + 2) : firstLine;
  return new GlError('script_error', 'the script failed', ran ? 'unknown' : 'none', { name, message, ran });
}

/**
 * Chromium: run the caller's source through `chrome.debugger` (Runtime.evaluate), which runs
 * it as WebDriver does, whatever the page's Content-Security-Policy says.
 */
async function executeWithDebugger(tabId, source, timeoutMs) {
  return withDebugger(tabId, async (send) => {
    await send('Runtime.enable', {});
    const forms = [source, `(async function () {\n${source}\n})()`, `(${source}\n)`];
    let chosen = null;
    let firstFailure = null;
    for (const form of forms) {
      const compiled = await send('Runtime.compileScript', { expression: form, sourceURL: '', persistScript: false });
      if (!compiled.exceptionDetails) {
        chosen = form;
        break;
      }
      firstFailure = firstFailure ?? compiled.exceptionDetails;
    }
    if (chosen === null) throw cdpFailure(firstFailure, false);
    const evaluated = await send('Runtime.evaluate', {
      expression: chosen,
      awaitPromise: true,
      returnByValue: false,
      userGesture: true,
      timeout: bounded(timeoutMs),
    });
    if (evaluated.exceptionDetails) throw cdpFailure(evaluated.exceptionDetails, true);
    return remoteValue(send, evaluated.result);
  });
}

/** Attach `chrome.debugger` to the tab for the span of `work(send)`, then detach. */
async function withDebugger(tabId, work) {
  const target = { tabId };
  await api.debugger.attach(target, '1.3');
  const send = (method, params) => api.debugger.sendCommand(target, method, params);
  try {
    return await work(send);
  } finally {
    await api.debugger.detach(target).catch(() => {});
  }
}

/**
 * Chromium: move `delta` entries through the tab's history with DevTools, as WebDriver does.
 * `tabs.goBack` skips entries made without a user gesture (Chromium's history intervention),
 * which are all of Ghostlight's. Answers whether there was such an entry.
 */
async function moveWithDebugger(tabId, delta) {
  return withDebugger(tabId, async (send) => {
    const { currentIndex, entries } = await send('Page.getNavigationHistory', {});
    const entry = entries[currentIndex + delta];
    if (!entry) return false;
    await send('Page.navigateToHistoryEntry', { entryId: entry.id });
    return true;
  });
}

/** Elsewhere: run it in the page's main world (subject to the page's CSP). */
async function executeInPage(tabId, source) {
  const [first] = await api.scripting.executeScript({ target: { tabId }, world: 'MAIN', func: glRunInPage, args: [source, glScrub.toString()] });
  const answer = first ? first.result : null;
  if (!answer || typeof answer !== 'object') throw new GlError('browser_error', 'the script gave no answer', 'unknown');
  if (answer.error) {
    throw new GlError('script_error', 'the script failed', answer.error.ran ? 'unknown' : 'none', answer.error);
  }
  return answer.value ?? null;
}

async function execute({ tab, script, timeout_ms }) {
  await getTab(tab);
  await mark(tab);
  const run = api.debugger ? executeWithDebugger(tab, String(script), timeout_ms) : executeInPage(tab, String(script));
  let timer = null;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new GlError('timeout', 'the script did not finish in time', 'unknown')), bounded(timeout_ms));
  });
  try {
    const value = await Promise.race([run, late]);
    return { value, page: await pageOf(await getTab(tab)) };
  } finally {
    clearTimeout(timer);
  }
}

// ---- operations --------------------------------------------------------------------------

const OPS = {
  async tabs_list() {
    const tabs = await api.tabs.query({});
    return Promise.all(tabs.map(async (tab) => ({ tab: tab.id, active: tab.active, page: await pageOf(tab) })));
  },

  async tab_open({ url, timeout_ms }) {
    const created = await api.tabs.create({ url: String(url), active: false });
    const page = await settledPage(created.id, 0, null, timeout_ms);
    return { tab: created.id, page };
  },

  async tab_focus({ tab }) {
    const updated = await api.tabs.update(tab, { active: true }).catch(() => {
      throw new GlError('tab_gone', 'the tab is gone');
    });
    await mark(tab);
    await api.windows.update(updated.windowId, { focused: true }).catch(() => {});
    const win = await api.windows.get(updated.windowId);
    return { window_focused: win.focused === true };
  },

  async tab_close({ tab }) {
    await getTab(tab);
    if (preserveTabs) throw new GlError('tab_preserved', 'the preserve-tabs setting keeps tabs open');
    await api.tabs.remove(tab);
    return null;
  },

  async page({ tab }) {
    return pageOf(await getTab(tab));
  },

  async navigate({ tab, url, timeout_ms }) {
    const from = await documentOf(tab);
    const before = loads.get(tab) ?? 0;
    await api.tabs.update(tab, { url: String(url) });
    return settledPage(tab, before, from, timeout_ms);
  },

  async history({ tab, step, bypass_cache, timeout_ms }) {
    const from = await documentOf(tab);
    const before = loads.get(tab) ?? 0;
    if (step === 'reload') {
      await api.tabs.reload(tab, { bypassCache: bypass_cache === true });
    } else if (api.debugger) {
      // Nothing to go back or forward to: the tab stays where it is.
      if (!(await moveWithDebugger(tab, step === 'back' ? -1 : 1))) return pageOf(await getTab(tab));
    } else {
      try {
        await (step === 'back' ? api.tabs.goBack(tab) : api.tabs.goForward(tab));
      } catch (error) {
        if (/history/i.test(String(error && error.message))) return pageOf(await getTab(tab));
        throw error;
      }
    }
    return settledPage(tab, before, from, timeout_ms);
  },

  async geometry({ tab }) {
    return geometryOf(tab);
  },

  async set_zoom({ tab, percent }) {
    await getTab(tab);
    await api.tabs.setZoom(tab, Number(percent) / 100);
    return geometryOf(tab);
  },

  async resize_window({ tab, width, height }) {
    const found = await getTab(tab);
    await api.windows.update(found.windowId, { width: Number(width), height: Number(height) });
    return geometryOf(tab);
  },

  async read_text({ tab, max_chars }) {
    await getTab(tab);
    return inTab(tab, glVisibleText, [Number(max_chars) || 0]);
  },

  async text_present({ tab, text }) {
    await getTab(tab);
    return inTab(tab, glTextPresent, [String(text)]);
  },

  async frame_urls({ tab }) {
    await getTab(tab);
    const results = await api.scripting.executeScript({ target: { tabId: tab, allFrames: true }, func: glFrameUrl });
    return results.filter((r) => r.frameId !== 0).map((r) => String(r.result ?? ''));
  },

  async capture_viewport({ tab }) {
    const found = await getTab(tab);
    if (!found.active) await api.tabs.update(tab, { active: true });
    await mark(tab);
    await inTab(tab, glPainted);
    let url;
    try {
      url = await api.tabs.captureVisibleTab(found.windowId, { format: 'png' });
    } catch (_) {
      // Chromium allows two captures a second: one more try after that window.
      await sleep(600);
      url = await api.tabs.captureVisibleTab(found.windowId, { format: 'png' });
    }
    const prefix = 'data:image/png;base64,';
    if (typeof url !== 'string' || !url.startsWith(prefix)) throw new GlError('browser_error', 'the capture is no PNG');
    return { png: url.slice(prefix.length), geometry: await geometryOf(tab) };
  },

  execute,
};

// ---- start -------------------------------------------------------------------------------

api.storage.local.get(['mode', 'preserveTabs']).then(
  (settings) => {
    preserveTabs = settings.preserveTabs === true;
    applyMode(settings.mode);
  },
  () => applyMode('active'),
);

// Recordings (`recording.js`): Chromium's service worker loads it here; Firefox lists it after
// this file in `background.scripts`.
if (typeof importScripts === 'function') importScripts('recording.js');
