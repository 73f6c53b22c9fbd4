// Ghostlight extension: the background (a service worker on Chromium, an event page on Firefox).
//
// It opens one native-messaging port to the Ghostlight native host (`ghostlight.native_host`),
// which relays to the Ghostlight server on this computer. It says hello, then answers the
// server's requests by id:
//
//   server → here  {type: 'welcome'}                       (the server accepted the hello)
//                  {type: 'refused', message}               (it did not: the popup shows why)
//                  {type: 'request', id, op, args}
//   here → server  {type: 'hello', protocol, engine, extension, instance}
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
const PROTOCOL = 3;
const ENGINE = typeof globalThis.browser !== 'undefined' && typeof globalThis.browser.runtime.getBrowserInfo === 'function'
  ? 'firefox'
  : 'chromium';
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 10000;
/** The longest wait the server may ask for; anything longer is cut to it. */
const MAX_WAIT_MS = 120000;
const POLL_MS = 50;
/** The longest wait for a page to lay out at a new zoom. */
const ZOOM_SETTLE_MS = 2000;
/** The longest wait for a page to see its window's new size after a resize. */
const RESIZE_SETTLE_MS = 2000;
/** The longest wait for a page's own state (a dialog Ghostlight does not watch blocks it). */
const PAGE_READ_MS = 3000;
/** How long a load that ran out of time may still take to tell whether its document committed. */
const COMMIT_PROBE_MS = 500;
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
/** Why the server refused this extension's hello last (kept until a welcome), for the popup. */
let refusal = null;
let port = null;
let backoff = BACKOFF_FIRST_MS;
let retryTimer = null;
/** Tabs Ghostlight drives (ids), for the popup's count. */
const driven = new Set();
/** The most tabs pages opened that are held until the server takes them. */
const MAX_OPENED = 64;
/**
 * Tabs a driven tab's page opened by itself (`window.open`, a `target=_blank` link), oldest
 * first, until `opened_tabs` takes them. Tabs the person's own pages open are never held.
 */
let openedByPages = [];
/** Loads started per tab (`loading` updates), so a wait knows a new load began. */
const loads = new Map();
/** The page state read last per tab, answered while a dialog blocks the page's scripts. */
const lastPages = new Map();

api.tabs.onUpdated.addListener((tabId, info) => {
  if (info.status === 'loading') loads.set(tabId, (loads.get(tabId) ?? 0) + 1);
  // A navigation clears the tab's own badge on some engines: put it back.
  if (info.status === 'complete' && driven.has(tabId)) badge(tabId);
});
/** Hold `tabId`, opened by a driven page, until `opened_tabs` takes it (once). */
function openedByPage(tabId) {
  if (openedByPages.includes(tabId) || driven.has(tabId)) return;
  if (openedByPages.length < MAX_OPENED) openedByPages.push(tabId);
}
api.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId !== undefined && driven.has(tab.openerTabId)) openedByPage(tab.id);
});
// Chromium's `openerTabId` names the window's active tab, not the page that opened the tab:
// the navigation's source tab does.
if (api.webNavigation && api.webNavigation.onCreatedNavigationTarget) {
  api.webNavigation.onCreatedNavigationTarget.addListener((details) => {
    if (driven.has(details.sourceTabId)) openedByPage(details.tabId);
  });
}
api.tabs.onRemoved.addListener((tabId) => {
  openedByPages = openedByPages.filter((id) => id !== tabId);
  loads.delete(tabId);
  driven.delete(tabId);
  held.delete(tabId);
  cancelled.delete(tabId);
  lastPages.delete(tabId);
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
  if (!ownPage || !message) return false;
  if (message.type === 'answer') {
    // The person's answer to the question the popup showed (only that question's id counts).
    settleQuestion(message.id, message.yes === true ? 'accepted' : 'declined');
    reply({ ok: true });
    return false;
  }
  if (message.type !== 'status') return false;
  const asking = question ? { id: question.id, text: question.text } : null;
  reply({ connection, mode, preserveTabs, driven: driven.size, lastError, engine: ENGINE, question: asking });
  return false;
});

// ---- confirmation: a question for the person, answered in the popup -----------------------

/** The question waiting for the person's answer: { id, text, resolve, timer }, or null. */
let question = null;
let questionSeq = 0;

/** Answer the waiting question `id` (a stale id changes nothing). */
function settleQuestion(id, answer) {
  if (!question || question.id !== id) return;
  const { resolve, timer } = question;
  question = null;
  clearTimeout(timer);
  api.action.setBadgeText({ text: '' }).catch(() => {});
  resolve(answer);
}

/** Ask the person `text` in the popup; one question at a time (a new one dismisses the old). */
function ask(text, timeoutMs) {
  if (question) settleQuestion(question.id, 'cancelled');
  return new Promise((resolve) => {
    const id = ++questionSeq;
    const timer = setTimeout(() => settleQuestion(id, 'cancelled'), bounded(timeoutMs));
    question = { id, text, resolve, timer };
    api.action.setBadgeText({ text: '?' }).catch(() => {});
    api.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => {});
    // Opening the popup needs a person's gesture in some browsers: the badge stays either way.
    try {
      Promise.resolve(api.action.openPopup?.()).catch(() => {});
    } catch (_) {
      // The badge asks instead.
    }
  });
}

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
  browserRun().then(
    (instance) => send(opened, { type: 'hello', protocol: PROTOCOL, engine: ENGINE, extension: api.runtime.getManifest().version, instance }),
    (error) => {
      // Without its run id the server cannot tell this browser's tabs from another's.
      if (port === opened) {
        port = null;
        opened.disconnect();
        retry(String(error));
      }
    },
  );
}

/** This browser run's id, made once per browser start (session storage outlives an idle worker, not the browser). */
let runId = null;
function browserRun() {
  runId ??= (async () => {
    const kept = await api.storage.session.get('instance');
    if (typeof kept.instance === 'string' && /^[0-9a-f]{32}$/.test(kept.instance)) return kept.instance;
    const made = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
    await api.storage.session.set({ instance: made });
    return made;
  })();
  runId.catch(() => { runId = null; });
  return runId;
}

function retry(error) {
  lastError = refusal ?? error;
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
  if (message.type === 'refused') {
    refusal = String(message.message ?? 'Ghostlight refused this extension.');
    lastError = refusal;
    return;
  }
  if (message.type === 'welcome') {
    connection = 'connected';
    lastError = null;
    refusal = null;
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
  if (!SETTLING_OPS.has(op) || !Number.isSafeInteger(args.tab)) return handler(args);
  const since = Date.now();
  const answered = await handler(args);
  await GL_NETWORK.settle(args.tab, since);
  return answered;
}

/**
 * Operations that act on a page (input, a script, a page function such as a fill): when the
 * page answers with requests the wire refuses, the answer waits for them to be reported.
 */
const SETTLING_OPS = new Set(['mouse', 'drag', 'wheel', 'keys', 'execute', 'page_call', 'resolve_dialog']);

/** Operations that may concern a tab showing the extension's own pages (they only look or close). */
const HARMLESS_ON_OWN_PAGES = new Set(['tabs_list', 'opened_tabs', 'page', 'tab_focus', 'tab_close']);

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
  await GL_NETWORK.govern(tabId);
  driven.add(tabId);
  badge(tabId);
  await watchDialogs(tabId);
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
/**
 * Run a script in a tab's documents at once, never waiting for a document that is still
 * loading to become idle (a page whose load never ends is read as it is, as over WebDriver).
 */
function inject(injection) {
  return api.scripting.executeScript({ ...injection, injectImmediately: true });
}

async function inTab(tabId, func, args = []) {
  const [first] = await inject({ target: { tabId }, func, args });
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

/** The page's own view of its window's outer size, `[width, height]`. */
function glOuterSize() {
  return [Math.round(window.outerWidth), Math.round(window.outerHeight)];
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
  // A dialog blocks the page's scripts: the state read last (its document has not changed).
  const entry = held.get(tab.id);
  if (entry && entry.dialog) return lastPages.get(tab.id) ?? fallbackState(tab, false);
  try {
    const state = await Promise.race([inTab(tab.id, glPageState), sleep(PAGE_READ_MS).then(() => null)]);
    if (state && typeof state.url === 'string') {
      lastPages.set(tab.id, state);
      return state;
    }
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
 * With `failuresBefore` (`GL_DIAGNOSTICS.failures` before the load began), a top-frame load
 * failure noted since answers `network_error` at once; with `target` (the URL asked for), a
 * passing `about:blank` is waited past.
 */
async function settle(tabId, before, from, timeoutMs, failuresBefore = null, target = null, refusedSince = null) {
  const deadline = Date.now() + bounded(timeoutMs);
  // Firefox shows a transient `about:blank` before a failed load's error: not a destination.
  const pastBlank = target !== null && !String(target).startsWith('about:');
  for (;;) {
    // Firefox cancels a navigation the network rules refuse: no load follows, the tab keeps
    // its document (Chromium shows its error page, a load like any other).
    if (refusedSince !== null && ENGINE === 'firefox' && GL_NETWORK.refusedSince(tabId, refusedSince)) {
      const tab = await getTab(tabId);
      if (tab.status === 'complete') return pageOf(tab);
    }
    failedLoad(tabId, failuresBefore);
    const tab = await getTab(tabId);
    if ((loads.get(tabId) ?? 0) > before && tab.status === 'complete') {
      const page = await pageOf(tab);
      const transient = pastBlank && page.url === 'about:blank';
      // Firefox can report a tab complete while its document still loads: the document says.
      const loaded = page.ready === 'complete' || page.ready === undefined;
      if ((from === null || page.document !== from) && !transient && loaded) return page;
    }
    refuseWhileDialog(tabId);
    if (Date.now() >= deadline) {
      // Out of time, but this load's document committed (its load event is still pending: a
      // slow image, a response that never ends): it is the landing, with `ready: loading`,
      // and the tab stays the caller's.
      if ((loads.get(tabId) ?? 0) > before) {
        const read = inTab(tabId, glPageState).catch(() => null);
        const page = await Promise.race([read, sleep(COMMIT_PROBE_MS).then(() => null)]);
        const web = page && typeof page.url === 'string' && !page.url.startsWith('about:');
        if (web && (from === null || page.document !== from)) {
          lastPages.set(tabId, page);
          return page;
        }
      }
      throw new GlError('timeout', 'the page did not finish loading in time', 'unknown');
    }
    await sleep(POLL_MS);
  }
}

/** Throw `network_error` (detail: the browser's code) for a load failure noted after `mark`. */
function failedLoad(tabId, mark) {
  if (mark === null) return;
  const code = GL_DIAGNOSTICS.failedSince(tabId, mark);
  if (code !== null) throw new GlError('network_error', 'the page did not load', 'unknown', { browser_code: code });
}

/**
 * Whether going from `current` to `target` only moves to a fragment of the same document
 * (the URLs differ at most in their fragment, and the target has one): no load follows.
 */
function fragmentOnly(current, target) {
  try {
    const from = new URL(String(current));
    const to = new URL(String(target));
    if (!String(target).includes('#')) return false;
    from.hash = '';
    to.hash = '';
    return from.href === to.href;
  } catch (_) {
    return false;
  }
}

/** Wait (bounded) until the tab shows `target` after a fragment-only move: the same document. */
async function fragmentMoved(tabId, target, timeoutMs) {
  const deadline = Date.now() + bounded(timeoutMs);
  const wanted = new URL(String(target)).href;
  for (;;) {
    const tab = await getTab(tabId);
    if (tab.url === wanted || Date.now() >= deadline) {
      const page = await pageOf(tab);
      await mark(tabId);
      return page;
    }
    refuseWhileDialog(tabId);
    await sleep(POLL_MS);
  }
}

/** The document a tab shows now (before a navigation). */
async function documentOf(tabId) {
  return (await pageOf(await getTab(tabId))).document;
}

async function settledPage(tabId, before, from, timeoutMs, failuresBefore = null, target = null, refusedSince = null) {
  const page = await settle(tabId, before, from, timeoutMs, failuresBefore, target, refusedSince);
  await mark(tabId);
  return page;
}

/**
 * After an action or a navigation that began at `since` on a page at `fromUrl`: a tab that
 * ended on a host the network rules refused shows the browser's error page for it (nothing
 * was sent); take it back to the page it showed (`about:blank` for a tab that showed nothing
 * yet), so a refused navigation leaves the tab on its document. Answers the page as it is then.
 */
async function keepDocument(tabId, page, since, fromUrl, timeoutMs) {
  if (!page) return page;
  // Chromium commits its error page for a blocked navigation a moment after the block (a
  // form an action submitted navigates in a later task): wait for it, bounded.
  if (ENGINE === 'chromium' && !GL_NETWORK.refusedDocument(tabId, page.url, since) && GL_NETWORK.refusedSince(tabId, since)) {
    const deadline = Date.now() + Math.min(bounded(timeoutMs), ERROR_PAGE_MS);
    for (;;) {
      const tab = await getTab(tabId);
      if (GL_NETWORK.refusedDocument(tabId, tab.url, since) && tab.status === 'complete') {
        page = await pageOf(tab);
        break;
      }
      if (Date.now() >= deadline) return page;
      await sleep(POLL_MS);
    }
  }
  if (!GL_NETWORK.refusedDocument(tabId, page.url, since)) return page;
  const wait = Math.min(bounded(timeoutMs), LANDING_MS);
  try {
    if (!fromUrl || String(fromUrl).startsWith('about:')) {
      const before = loads.get(tabId) ?? 0;
      await api.tabs.update(tabId, { url: 'about:blank' });
      return await settle(tabId, before, null, wait);
    }
    let before = loads.get(tabId) ?? 0;
    // Chromium's `tabs.goBack` skips entries made without a user gesture: the debugger steps.
    if (api.debugger) await moveWithDebugger(tabId, -1);
    else await api.tabs.goBack(tabId);
    let back = await settle(tabId, before, null, wait);
    // A blocked redirect may leave no entry of its own to step back from: when the step
    // landed elsewhere, the page is loaded again instead.
    if (back.url !== fromUrl) {
      before = loads.get(tabId) ?? 0;
      await api.tabs.update(tabId, { url: String(fromUrl) });
      back = await settle(tabId, before, null, wait);
    }
    return back;
  } catch (_) {
    return pageOf(await getTab(tabId));
  }
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
async function executeWithDebugger(tabId, source, timeoutMs, gesture = true) {
  return withDebugger(tabId, async (send) => {
    await send('Runtime.enable', {});
    try {
      return await evaluateWithDebugger(send, source, timeoutMs, gesture);
    } finally {
      // The attachment stays: without Runtime, the page's console is not streamed to us
      // (unless its console is tracked for diagnostics, see diagnostics.js).
      if (!GL_DIAGNOSTICS.consoleWatched(tabId)) await send('Runtime.disable', {}).catch(() => {});
    }
  });
}

/** Compile `source` as a program, an async function body or an expression, and run it. */
async function evaluateWithDebugger(send, source, timeoutMs, gesture) {
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
    userGesture: gesture,
    timeout: bounded(timeoutMs),
  });
  if (evaluated.exceptionDetails) throw cdpFailure(evaluated.exceptionDetails, true);
  return remoteValue(send, evaluated.result);
}

/**
 * Run `work(send)` with `chrome.debugger` attached to the tab. The attachment is kept (see
 * `holdDebugger` in the input section): dialogs are only seen while it lasts.
 */
async function withDebugger(tabId, work) {
  await holdDebugger(tabId);
  return work((method, params) => api.debugger.sendCommand({ tabId }, method, params));
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
  const [first] = await inject({ target: { tabId }, world: 'MAIN', func: glRunInPage, args: [source, glScrub.toString()] });
  const answer = first ? first.result : null;
  if (!answer || typeof answer !== 'object') throw new GlError('browser_error', 'the script gave no answer', 'unknown');
  if (answer.error) {
    throw new GlError('script_error', 'the script failed', answer.error.ran ? 'unknown' : 'none', answer.error);
  }
  return answer.value ?? null;
}

async function execute({ tab, script, timeout_ms }) {
  await getTab(tab);
  refuseWhileDialog(tab);
  await mark(tab);
  return runScript(tab, String(script), timeout_ms, true);
}

/**
 * Run `source` in the tab's main world (`chrome.debugger` where there is one, `userGesture`
 * as asked), bounded by `timeout_ms`: its scrubbed value and the page afterwards.
 */
async function runScript(tab, source, timeout_ms, gesture) {
  const run = api.debugger ? executeWithDebugger(tab, source, timeout_ms, gesture) : executeInPage(tab, source);
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

// ---- input and dialogs (Chromium: trusted input through chrome.debugger) -----------------
//
// Chromium: the debugger stays attached to every tab Ghostlight drives (from its first
// open, navigation or mark until the tab closes or the person cancels the "started debugging
// this browser" bar): JavaScript dialogs raise `Page.javascriptDialogOpening` only while it
// is attached, so a dialog a page opens between two calls is seen, and the bar shows the
// person which browser is being driven. A dialog's kind is kept per tab; its text never is.
// Pointer, wheel and key input are `Input.dispatch*Event`s (trusted: `isTrusted` is true).
// Input sent while a dialog is open would wait for it: it is refused (`dialog_open`), and
// a dialog the input opens stops the rest of the sequence.
// Firefox has no `chrome.debugger`: these operations answer `unsupported` (the server says
// so first, naming the engine); page scripts (`page_script`) run in the main world there.

/** Dialog kinds Chromium names (anything else is reported as `confirm`, whose two answers fit every dialog). */
const DIALOG_KINDS = new Set(['alert', 'confirm', 'prompt', 'beforeunload']);
/** How long input waits for a load it may have started to begin (a click on a link). */
const INPUT_LOAD_START_MS = 100;
/** The longest wait for Chromium's error page of a navigation the network rules blocked. */
const ERROR_PAGE_MS = 2000;
/** The longest wait for a load an input or an accepted leave-page prompt started. */
const LANDING_MS = 5000;
/** Steps of the pointer's move onto a drag's destination. */
const DRAG_STEPS = 10;
/** How far the pointer moves right after a drag's press, so the page sees a drag begin. */
const DRAG_LIFT = 5;
/** The token of a page script the held parts replace. */
const STASH_MARKER = '__ghostlight_stash__';
/** The most characters held (5,000,000 bytes of files in base64, with their JSON around). */
const MAX_STASH_CHARS = 7000000;
/** One text sent in parts (files to drop): {key, parts, chars}, or null. */
let stash = null;
const MOUSE_BUTTONS = { primary: ['left', 1], middle: ['middle', 4], secondary: ['right', 2] };

/**
 * Tabs the debugger is attached to: tabId → {ready, dialog (the open one's kind), opened
 * (dialogs seen so far), waiters (woken when one opens)}.
 */
const held = new Map();

if (api.debugger) {
  api.debugger.onEvent.addListener((source, method, params) => {
    const entry = held.get(source.tabId);
    if (!entry) return;
    if (method === 'Page.javascriptDialogOpening') {
      // Only the kind: the message and default prompt text are page content, never kept.
      entry.dialog = DIALOG_KINDS.has(params && params.type) ? params.type : 'confirm';
      entry.opened += 1;
      for (const wake of entry.waiters) wake();
    } else if (method === 'Page.javascriptDialogClosed') {
      entry.dialog = null;
    }
  });
  api.debugger.onDetach.addListener((source, reason) => {
    if (source.tabId === undefined) return;
    held.delete(source.tabId);
    if (reason === 'canceled_by_user') cancelled.add(source.tabId);
  });
}

/** Tabs whose debugging the person cancelled (Chromium's bar): never attached again. */
const cancelled = new Set();

/**
 * Chromium: attach the debugger to the tab (once) and enable the events dialogs raise. A tab
 * whose debugging the person cancelled is refused (`paused`): that was their answer.
 */
async function holdDebugger(tabId) {
  if (cancelled.has(tabId)) throw new GlError('paused', 'the person stopped Ghostlight debugging this tab');
  let entry = held.get(tabId);
  if (!entry) {
    entry = { ready: null, dialog: null, opened: 0, waiters: new Set() };
    held.set(tabId, entry);
    const target = { tabId };
    entry.ready = (async () => {
      await api.debugger.attach(target, '1.3');
      await api.debugger.sendCommand(target, 'Page.enable', {});
    })();
    entry.ready.catch(() => {
      if (held.get(tabId) === entry) held.delete(tabId);
    });
  }
  await entry.ready;
  return entry;
}

/** Keep the debugger on a tab Ghostlight drives (best effort: pages it may not attach to stay unwatched). */
async function watchDialogs(tabId) {
  if (!api.debugger) return;
  await holdDebugger(tabId).catch(() => {});
}

/** A `dialog_open` failure while a dialog blocks the tab (`effect`: whether anything happened). */
function refuseWhileDialog(tabId, effect = 'none') {
  const entry = held.get(tabId);
  if (entry && entry.dialog) throw new GlError('dialog_open', 'a dialog blocks the tab', effect, { dialog: entry.dialog });
}

/** Chromium only: `what` names the work for the refusal elsewhere. */
function needDebugger(what) {
  if (!api.debugger) throw new GlError('unsupported', `${what} needs chrome.debugger, which this engine does not give extensions`);
}

/**
 * Chromium: run `work(send)`, a sequence of trusted input commands, on the tab. A dialog the
 * input opens ends the sequence (nothing more is sent). Answers the page afterwards, once a
 * load the input started landed (bounded), or `page: null` with the dialog's kind.
 */
async function dispatchInput(tabId, timeoutMs, work) {
  const since = Date.now();
  const fromUrl = (await getTab(tabId)).url;
  const landed = await dispatchInputUnkept(tabId, timeoutMs, work);
  if (landed.page) landed.page = await keepDocument(tabId, landed.page, since, fromUrl, timeoutMs);
  return landed;
}

/** How long a tab whose debugger failed mid-input may take to be reported closed. */
const CLOSING_TAB_MS = 1000;

/**
 * A DevTools failure during input: `tab_gone` (effect unknown: the input reached the page)
 * when the page closed its own tab in answer, which detaches the debugger a moment before the
 * tab is reported removed; else the failure itself.
 */
async function inputFailure(tabId, error) {
  if (error instanceof GlError) return error;
  const deadline = Date.now() + CLOSING_TAB_MS;
  for (;;) {
    const open = await api.tabs.get(tabId).then(() => true, () => false);
    if (!open) return new GlError('tab_gone', 'the tab is gone', 'unknown');
    if (Date.now() >= deadline) return error;
    await sleep(POLL_MS);
  }
}

/** `dispatchInput` before the refused-navigation check. */
async function dispatchInputUnkept(tabId, timeoutMs, work) {
  needDebugger('trusted input');
  await getTab(tabId);
  const entry = await holdDebugger(tabId);
  refuseWhileDialog(tabId);
  await mark(tabId);
  await GL_NETWORK.activated(tabId);
  const before = loads.get(tabId) ?? 0;
  const stopped = new GlError('dialog_open', 'a dialog opened', 'unknown');
  let over = false;
  const send = async (method, params) => {
    if (entry.dialog || over) throw stopped;
    return api.debugger.sendCommand({ tabId }, method, params);
  };
  let wake = null;
  const opened = new Promise((resolve) => {
    wake = resolve;
    entry.waiters.add(resolve);
  });
  let timer = null;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new GlError('timeout', 'the input did not finish in time', 'unknown')), bounded(timeoutMs));
  });
  const target = { tabId };
  // For the span of the input, the page renders and takes input as a focused one would even
  // in the background (otherwise every mouse event waits for a frame that never comes).
  await api.debugger.sendCommand(target, 'Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => {});
  try {
    await Promise.race([work(send).catch(async (error) => {
      if (error !== stopped) throw await inputFailure(tabId, error);
    }), opened, late]);
  } finally {
    over = true;
    entry.waiters.delete(wake);
    clearTimeout(timer);
    // The page's user activation starts with the input, not before it: the window in which
    // a tab it opens is governed from its first request runs from here (an input slowed by
    // a loaded machine could otherwise outlast a window opened before it).
    await GL_NETWORK.activated(tabId).catch(() => {});
    // Not awaited: a dialog the input opened holds the page's commands until it is answered.
    api.debugger.sendCommand(target, 'Emulation.setFocusEmulationEnabled', { enabled: false }).catch(() => {});
  }
  if (entry.dialog) return { page: null, dialog: entry.dialog };
  await sleep(INPUT_LOAD_START_MS);
  if ((loads.get(tabId) ?? 0) > before) {
    try {
      return { page: await settle(tabId, before, null, Math.min(bounded(timeoutMs), LANDING_MS)), dialog: null };
    } catch (error) {
      // Out of time (the landing is reported as it is now), or a dialog the new page opened.
      if (!(error instanceof GlError) || (error.code !== 'timeout' && error.code !== 'dialog_open')) throw error;
    }
  }
  if (entry.dialog) return { page: null, dialog: entry.dialog };
  return { page: await pageOf(await getTab(tabId)), dialog: null };
}

/**
 * Select the tab in its window before input that needs rendered frames: a hidden tab's
 * compositor does not scroll, and mouse moves with a button held wait for frames that never
 * come. Clicks, hovers and keys go to a tab in the background (see `dispatchInput`).
 */
async function selectForFrames(tabId) {
  needDebugger('trusted input');
  if (!(await getTab(tabId)).active) await api.tabs.update(tabId, { active: true });
}

/**
 * Chromium: accept the leave-page prompt a navigation raises, if one shows before the new
 * load starts (`before`: the tab's loads until then; bounded); the navigation then goes on.
 * Any other dialog is left open.
 */
async function leaveWithoutAsking(tabId, before, timeoutMs) {
  const entry = held.get(tabId);
  if (!entry) return;
  const deadline = Date.now() + bounded(timeoutMs);
  while (Date.now() < deadline) {
    if (entry.dialog === 'beforeunload') {
      await api.debugger.sendCommand({ tabId }, 'Page.handleJavaScriptDialog', { accept: true });
      entry.dialog = null;
      return;
    }
    if (entry.dialog || (loads.get(tabId) ?? 0) > before) return;
    await sleep(POLL_MS);
  }
}

/** A finite viewport coordinate. */
function coordinate(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new GlError('browser_error', 'a coordinate is not a number');
  return n;
}

/** The wire's button as DevTools names it, and its `buttons` bit. */
function mouseButton(button) {
  const known = MOUSE_BUTTONS[button];
  if (!known) throw new GlError('browser_error', 'an unknown mouse button');
  return known;
}

/**
 * Chromium: a drag that starts on an HTML5 `draggable` element is intercepted
 * (`Input.setInterceptDrags`) and finished with `Input.dispatchDragEvent` at the destination,
 * since a headless browser has no system drag loop; any other drag is plain mouse moves.
 */
async function dragWithDebugger(tabId, send, from, to) {
  let intercepted = null;
  const listener = (source, method, params) => {
    if (source.tabId === tabId && method === 'Input.dragIntercepted') intercepted = params.data;
  };
  api.debugger.onEvent.addListener(listener);
  try {
    await send('Input.setInterceptDrags', { enabled: true });
    const mouse = (type, at, extra = {}) => send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', ...extra });
    await mouse('mouseMoved', from, { button: 'none' });
    await mouse('mousePressed', from, { buttons: 1, clickCount: 1 });
    const lift = { x: from.x + DRAG_LIFT, y: from.y + DRAG_LIFT };
    await mouse('mouseMoved', lift, { buttons: 1 });
    for (let step = 1; step <= DRAG_STEPS; step++) {
      const at = { x: lift.x + ((to.x - lift.x) * step) / DRAG_STEPS, y: lift.y + ((to.y - lift.y) * step) / DRAG_STEPS };
      await mouse('mouseMoved', at, { buttons: 1 });
      if (intercepted) break;
    }
    if (intercepted) {
      const drag = (type) => send('Input.dispatchDragEvent', { type, x: to.x, y: to.y, data: intercepted });
      await drag('dragEnter');
      await drag('dragOver');
      await drag('drop');
    } else {
      await mouse('mouseMoved', to, { buttons: 1 });
    }
    await mouse('mouseReleased', to, { buttons: 0, clickCount: 1 });
  } finally {
    api.debugger.onEvent.removeListener(listener);
    await api.debugger.sendCommand({ tabId }, 'Input.setInterceptDrags', { enabled: false }).catch(() => {});
  }
}

/** Chromium: key strokes `{key, code, key_code, text?}` with the modifier keys `around` each held (`modifiers`: DevTools' bits). */
async function keysWithDebugger(send, strokes, around, modifiers, repeat) {
  const event = (type, stroke, mods, text) => send('Input.dispatchKeyEvent', {
    type,
    key: stroke.key,
    code: stroke.code,
    windowsVirtualKeyCode: stroke.key_code,
    nativeVirtualKeyCode: stroke.key_code,
    modifiers: mods,
    ...(text ? { text, unmodifiedText: text } : {}),
  });
  // Text under Control, Alt or Meta is a shortcut, not typing.
  const typing = (modifiers & 7) === 0;
  for (let round = 0; round < repeat; round++) {
    for (const stroke of strokes) {
      for (const modifier of around) await event('rawKeyDown', modifier, modifiers, null);
      const text = typing && typeof stroke.text === 'string' ? stroke.text : null;
      await event(text ? 'keyDown' : 'rawKeyDown', stroke, modifiers, text);
      await event('keyUp', stroke, modifiers, null);
      for (const modifier of [...around].reverse()) await event('keyUp', modifier, 0, null);
    }
  }
}

/** The text held under `key` (see `stash_part`), dropped as it is taken. */
function takeStash(key) {
  if (!stash || stash.key !== key) throw new GlError('browser_error', 'the held parts are gone');
  const parts = stash.parts.join('');
  stash = null;
  return parts;
}

/** Hold `text` under `key` at once, as `stash_part` holds parts (a replay for a file input). */
function holdStash(key, text) {
  stash = { key: String(key), parts: [text], chars: text.length };
}

const INPUT_OPS = {
  /**
   * Run one of the server's input scripts (hit test, focus, key guard, scroll offsets) in the
   * page's main world, without a user gesture: its value and the page (before any input).
   */
  async page_script({ tab, source, stash: key, timeout_ms }) {
    await getTab(tab);
    refuseWhileDialog(tab);
    let text = String(source);
    if (typeof key === 'string') {
      const parts = takeStash(key);
      // A function, so `$` patterns in the held text are not read as replacement patterns.
      text = text.replace(STASH_MARKER, () => parts);
    }
    return runScript(tab, text, timeout_ms, false);
  },

  /** Hold one part of a text too large for one message (see `page_script`'s `stash`). */
  async stash_part({ key, part, first }) {
    if (first === true || !stash || stash.key !== key) stash = { key: String(key), parts: [], chars: 0 };
    const text = String(part);
    if (stash.chars + text.length > MAX_STASH_CHARS) {
      stash = null;
      throw new GlError('browser_error', 'the held text is over its bound');
    }
    stash.parts.push(text);
    stash.chars += text.length;
    return stash.chars;
  },

  /**
   * Move the pointer to (x, y) and press `button` `count` times (0: a hover), with the
   * modifier keys `modifiers` (DevTools' bits) held on every event.
   */
  async mouse({ tab, x, y, button, count, modifiers, timeout_ms }) {
    const at = { x: coordinate(x), y: coordinate(y), modifiers: (Number(modifiers) || 0) & 15 };
    const [name, bit] = mouseButton(button);
    const clicks = Math.max(0, Math.min(3, Math.floor(Number(count) || 0)));
    return dispatchInput(tab, timeout_ms, async (send) => {
      await send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at, button: 'none' });
      for (let click = 1; click <= clicks; click++) {
        await send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button: name, buttons: bit, clickCount: click });
        await send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button: name, buttons: 0, clickCount: click });
      }
    });
  },

  /** Press at `from`, move to `to`, release (see `dragWithDebugger`; the tab selected first). */
  async drag({ tab, from, to, timeout_ms }) {
    const start = { x: coordinate(from.x), y: coordinate(from.y) };
    const end = { x: coordinate(to.x), y: coordinate(to.y) };
    await selectForFrames(tab);
    return dispatchInput(tab, timeout_ms, (send) => dragWithDebugger(tab, send, start, end));
  },

  /** Turn the wheel at (x, y) by `delta_y` CSS pixels (the tab selected first). */
  async wheel({ tab, x, y, delta_y, timeout_ms }) {
    const at = { x: coordinate(x), y: coordinate(y) };
    const deltaY = coordinate(delta_y);
    await selectForFrames(tab);
    return dispatchInput(tab, timeout_ms, (send) =>
      send('Input.dispatchMouseEvent', { type: 'mouseWheel', ...at, deltaX: 0, deltaY }));
  },

  /** Key strokes, `repeat` times, each with the held modifiers around it. */
  async keys({ tab, strokes, held: modifierKeys, modifiers, repeat, timeout_ms }) {
    const list = Array.isArray(strokes) ? strokes : [];
    const around = Array.isArray(modifierKeys) ? modifierKeys : [];
    const rounds = Math.max(1, Math.floor(Number(repeat) || 1));
    return dispatchInput(tab, timeout_ms, (send) => keysWithDebugger(send, list, around, Number(modifiers) || 0, rounds));
  },

  /** The kind of the dialog blocking the tab (null when none is open). */
  async dialog({ tab }) {
    needDebugger('seeing dialogs');
    await getTab(tab);
    const entry = await holdDebugger(tab);
    return entry.dialog;
  },

  /**
   * Accept or dismiss the open dialog (`text` for a prompt): answers its kind. Accepting a
   * leave-page prompt lets the navigation it held go on: the answer waits (bounded) for it.
   */
  async resolve_dialog({ tab, accept, text, timeout_ms }) {
    needDebugger('resolving dialogs');
    await getTab(tab);
    const entry = await holdDebugger(tab);
    const kind = entry.dialog;
    if (!kind) throw new GlError('no_dialog', 'no dialog is open');
    if (typeof text === 'string' && kind !== 'prompt') throw new GlError('not_prompt', 'only a prompt takes a response');
    const before = loads.get(tab) ?? 0;
    const params = { accept: accept === true };
    if (typeof text === 'string') params.promptText = text;
    const seen = entry.opened;
    await api.debugger.sendCommand({ tabId: tab }, 'Page.handleJavaScriptDialog', params);
    // The page may open its next dialog before this answer arrives: that one stays noted.
    if (entry.opened === seen) entry.dialog = null;
    if (kind === 'beforeunload' && accept === true) {
      await settle(tab, before, null, Math.min(bounded(timeout_ms), LANDING_MS)).catch(() => {});
    }
    return kind;
  },
};

// ---- perception: the page API (page/dom.js) ----------------------------------------------
//
// `page/dom.js` is composed from the shared page scripts (ghostlight-page/scripts) by
// ghostlight_page::bundle and placed by `ghostlight install`. It is injected into one frame document's isolated world
// (idempotent: it defines the API once per document) and called there with `func`: the page's
// own scripts cannot see or change what it calls, nor its element registry.

const PAGE_FILE = 'page/dom.js';
/** The page API's functions the server may call (see ghostlight-page/scripts/page_api.js). */
const PAGE_CALLS = new Set(['here', 'perceive', 'present', 'readText', 'textPresent', 'frames', 'frameOffset', 'box', 'pageSize', 'select', 'input', 'frameAt']);

/** Call the page API's `call(...args)` in this document (run in the isolated world). */
function glPageCall(call, args) {
  const page = globalThis[Symbol.for('ghostlight.page')];
  if (!page || typeof page[call] !== 'function') return { missing: true };
  return { value: page[call](...args) };
}

/** A failure to reach a frame: gone (navigated, removed) answers `stale`. */
function frameFailure(error) {
  const message = String(error && error.message ? error.message : error);
  if (/no tab with id/i.test(message)) return new GlError('tab_gone', 'the tab is gone');
  if (/frame/i.test(message)) return new GlError('stale', 'the frame document is gone');
  return new GlError('browser_error', message, 'none');
}

/** Run the page API's `call` in frame `frameId` of the tab; its value (`stale` answers stale). */
async function inFrame(tabId, frameId, call, args) {
  const target = { tabId, frameIds: [frameId] };
  let first;
  try {
    await inject({ target, files: [PAGE_FILE] });
    [first] = await inject({ target, func: glPageCall, args: [call, args] });
  } catch (error) {
    throw frameFailure(error);
  }
  const answer = first ? first.result : null;
  if (!answer || typeof answer !== 'object' || answer.missing) {
    throw new GlError('stale', 'the frame document has no page API (it navigated)');
  }
  const value = answer.value;
  if (value && typeof value === 'object' && value.stale === true) {
    throw new GlError('stale', 'the element is gone');
  }
  return value === undefined ? null : value;
}

/**
 * `page` with the gate its loaded top document presents (the page API's `gate`, gate.js), when
 * there is one. Advisory: a page that cannot be asked (loading, a dialog, a browser page)
 * answers as it is.
 */
async function withGate(tabId, page) {
  if (!page || page.ready !== 'complete' || page.error_page) return page;
  const entry = held.get(tabId);
  if (entry && entry.dialog) return page;
  const gate = await Promise.race([inFrame(tabId, 0, 'gate', []), sleep(PAGE_READ_MS).then(() => null)]).catch(() => null);
  return typeof gate === 'string' ? { ...page, gate } : page;
}

/** How long listing every frame document at once may take before they are asked one by one. */
const FRAME_LIST_MS = 3000;
/** How long one frame document may take to answer when frames are asked one by one. */
const FRAME_ANSWER_MS = 1000;
/** The most frame documents asked one by one (a page of thousands of frames, one of them hung). */
const MAX_FRAMES_ONE_BY_ONE = 64;

/**
 * Every frame document of the tab the extension can script: its frame id, identity and place.
 * All frames are asked at once; when that gets no answer in FRAME_LIST_MS (a frame document
 * that never yields holds the whole injection), each frame is asked on its own, and one that
 * does not answer in FRAME_ANSWER_MS is left out, as a frame the extension cannot script is.
 */
async function pageFrames(tabId) {
  const target = { tabId, allFrames: true };
  const all = (async () => {
    await inject({ target, files: [PAGE_FILE] });
    return inject({ target, func: glPageCall, args: ['here', []] });
  })();
  // Settled later (or never) when the race below ends first: nothing waits for it then.
  all.catch(() => {});
  let results;
  try {
    results = await Promise.race([all, sleep(FRAME_LIST_MS).then(() => null)]);
  } catch (error) {
    throw frameFailure(error);
  }
  if (results === null) results = await framesOneByOne(tabId);
  return results
    .filter((r) => r && r.result && r.result.value && typeof r.result.value === 'object')
    .map((r) => ({ frame: r.frameId, ...r.result.value }));
}

/** `pageFrames` one frame document at a time (see there): the injection results that came. */
async function framesOneByOne(tabId) {
  let frames = [];
  try {
    frames = (await api.webNavigation.getAllFrames({ tabId })) || [];
  } catch (_) {
    frames = [];
  }
  const ids = frames.map((f) => f.frameId).sort((a, b) => a - b).slice(0, MAX_FRAMES_ONE_BY_ONE);
  const one = (frameId) => {
    const target = { tabId, frameIds: [frameId] };
    const work = (async () => {
      await inject({ target, files: [PAGE_FILE] });
      const [first] = await inject({ target, func: glPageCall, args: ['here', []] });
      return first ? { ...first, frameId } : null;
    })().catch(() => null);
    return Promise.race([work, sleep(FRAME_ANSWER_MS).then(() => null)]);
  };
  return (await Promise.all(ids.map(one))).filter(Boolean);
}

const PERCEPTION_OPS = {
  async page_call({ tab, frame, call, args, stash: key }) {
    await getTab(tab);
    if (!PAGE_CALLS.has(call)) throw new GlError('unsupported', `the page API has no function ${String(call)}`);
    let given = Array.isArray(args) ? args : [];
    if (typeof key === 'string') {
      // The held text (JSON) stands for the marker wherever it is an argument of an input script.
      const held = JSON.parse(takeStash(key));
      const splice = (v) => (v === STASH_MARKER ? held : v);
      given = given.map((v) => (Array.isArray(v) ? v.map(splice) : splice(v)));
    }
    return inFrame(tab, Number(frame), call, given);
  },

  async page_frames({ tab }) {
    await getTab(tab);
    return pageFrames(tab);
  },
};

// ---- capture: the viewport's pixels, a part of the page, frames painted over -------------
//
// A rectangle of the document (CSS pixels), optionally resized to an exact output size.
// Chromium: `Page.captureScreenshot` through `chrome.debugger`, clipped to the rectangle and
// beyond the viewport. Firefox (no debugger): the visible tab, cropped; a rectangle outside
// the viewport answers `unsupported`. `blank` lists document rectangles (frames showing a
// document outside Ghostlight's authority) painted over in the image.

/** The colour refused frames are painted over with (opaque mid grey, as the WebDriver adapter). */
const BLANK_COLOUR = 'rgb(128, 128, 128)';

/** Bytes of base64 text. */
function fromBase64(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** Base64 text of bytes (in chunks: spreading a large array overflows the stack). */
function toBase64(bytes) {
  let raw = '';
  for (let i = 0; i < bytes.length; i += 0x8000) raw += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(raw);
}

const decodePng = (png) => createImageBitmap(new Blob([fromBase64(png)], { type: 'image/png' }));

async function encodeCanvas(canvas) {
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return toBase64(new Uint8Array(await blob.arrayBuffer()));
}

/** A base64 PNG's width. */
async function pngWidth(png) {
  const bitmap = await decodePng(png);
  const width = bitmap.width;
  bitmap.close();
  return width;
}

/** The part (sx, sy, sw, sh) of a base64 PNG drawn at width × height, as a base64 PNG. */
async function cropPng(png, sx, sy, sw, sh, width, height) {
  const bitmap = await decodePng(png);
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, sx, sy, sw, sh, 0, 0, width, height);
  bitmap.close();
  return encodeCanvas(canvas);
}

/**
 * The PNG with each of `blank` ([x, y, w, h], document CSS pixels) painted over; the image's
 * top-left pixel sits at document point `origin`, `scale` image pixels per CSS pixel.
 */
async function blankPng(png, blank, origin, scale) {
  if (!Array.isArray(blank) || blank.length === 0) return png;
  const bitmap = await decodePng(png);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  context.fillStyle = BLANK_COLOUR;
  for (const [x, y, w, h] of blank) {
    const left = Math.floor((Number(x) - origin[0]) * scale);
    const top = Math.floor((Number(y) - origin[1]) * scale);
    context.fillRect(left, top, Math.ceil(Number(w) * scale) + 1, Math.ceil(Number(h) * scale) + 1);
  }
  return encodeCanvas(canvas);
}

/** Select the tab and wait until it has painted (a capture shows it). */
async function showTab(tabId) {
  const found = await getTab(tabId);
  if (!found.active) await api.tabs.update(tabId, { active: true });
  await mark(tabId);
  await inTab(tabId, glPainted);
  return found;
}

/** How many times a capture over Chromium's rate quota is tried, and the wait between tries. */
const CAPTURE_QUOTA_TRIES = 4;
const CAPTURE_QUOTA_WAIT_MS = 600;

/** The visible part of the tab's window as a base64 PNG. */
async function visiblePng(found) {
  let url;
  for (let attempt = 1; ; attempt++) {
    try {
      url = await api.tabs.captureVisibleTab(found.windowId, { format: 'png' });
      break;
    } catch (error) {
      // Chromium allows two captures a second (shared with recordings): wait out the window.
      const quota = /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(String(error && error.message ? error.message : error));
      if (!quota || attempt >= CAPTURE_QUOTA_TRIES) throw error;
      await sleep(CAPTURE_QUOTA_WAIT_MS);
    }
  }
  return pngOf(url);
}

/** How many times a viewport capture is taken while the view moves under it. */
const VIEWPORT_CAPTURE_TRIES = 4;

/** Whether two geometries show the same view (size, scale, zoom and scroll). */
function sameView(a, b) {
  return a.viewport_width === b.viewport_width && a.viewport_height === b.viewport_height
    && a.device_scale === b.device_scale && a.zoom_percent === b.zoom_percent
    && a.scroll_x === b.scroll_x && a.scroll_y === b.scroll_y;
}

/**
 * The visible part of the tab with the geometry it shows: taken again (bounded) while the
 * geometry read before and after the capture disagree, or the image is not the viewport's
 * size. Chromium's bars move the viewport for a moment (its debugging bar slides when a tab
 * joins the debugging session), and a view must carry the geometry its image shows.
 */
async function settledCapture(tab, found) {
  let before = await geometryOf(tab);
  for (let attempt = 1; ; attempt++) {
    const png = await visiblePng(found);
    const geometry = await geometryOf(tab);
    const bitmap = await decodePng(png);
    const [width, height] = [bitmap.width, bitmap.height];
    bitmap.close();
    const scale = width / geometry.viewport_width;
    const fits = Math.abs(height - geometry.viewport_height * scale) <= 1;
    if ((sameView(before, geometry) && fits) || attempt >= VIEWPORT_CAPTURE_TRIES) {
      return { png, geometry, scale };
    }
    await sleep(POLL_MS);
    before = await geometryOf(tab);
  }
}

/** The base64 PNG of a capture's data URL. */
function pngOf(url) {
  const prefix = 'data:image/png;base64,';
  if (typeof url !== 'string' || !url.startsWith(prefix)) throw new GlError('browser_error', 'the capture is no PNG');
  return url.slice(prefix.length);
}

/** The longest wait for the viewport to return to its size after a capture beyond it. */
const VIEWPORT_BACK_MS = 5000;

/**
 * How far (CSS px) a viewport may end from its size before a capture beyond it and count as
 * back: Chromium's rounding can leave it a pixel off (the core keeps views within as much).
 */
const VIEWPORT_BACK_SLACK = 1;

/**
 * Wait (bounded) until the tab's viewport has the size of `before` again, read so twice in a
 * row (the resize back can land a moment after a first read that still saw the old size).
 */
async function viewportBack(tab, before) {
  const deadline = Date.now() + VIEWPORT_BACK_MS;
  let agreed = 0;
  for (;;) {
    const now = await geometryOf(tab).catch(() => before);
    const same = Math.abs(now.viewport_width - before.viewport_width) <= VIEWPORT_BACK_SLACK
      && Math.abs(now.viewport_height - before.viewport_height) <= VIEWPORT_BACK_SLACK;
    agreed = same ? agreed + 1 : 0;
    if (agreed >= 2 || Date.now() >= deadline) return;
    await sleep(POLL_MS);
  }
}

/** Whether document rectangle `rect` lies within the viewport `geometry` shows (to a pixel). */
function insideViewport(rect, geometry) {
  const slack = 1;
  return rect.x >= geometry.scroll_x - slack
    && rect.y >= geometry.scroll_y - slack
    && rect.x + rect.width <= geometry.scroll_x + geometry.viewport_width + slack
    && rect.y + rect.height <= geometry.scroll_y + geometry.viewport_height + slack;
}

const CAPTURE_OPS = {
  async capture_area({ tab, x, y, width, height, out_width, out_height, blank }) {
    await showTab(tab);
    const rect = { x: Number(x), y: Number(y), width: Number(width), height: Number(height) };
    const geometry = await geometryOf(tab);
    const out = Number(out_width) > 0 && Number(out_height) > 0 ? [Number(out_width), Number(out_height)] : null;
    // Chromium: DevTools; Firefox: `tabs.captureTab`, which renders any rectangle of the
    // document (page CSS pixels) at the device's scale. Both reach beyond the viewport.
    // Chromium reaches beyond it by resizing the viewport for a moment (the page sees a
    // `resize`), so a rectangle inside the viewport is captured from the surface as shown.
    const beyond = !insideViewport(rect, geometry);
    let png = api.debugger
      ? (await withDebugger(tab, (send) => send('Page.captureScreenshot', {
        format: 'png',
        clip: { ...rect, scale: 1 },
        captureBeyondViewport: beyond,
        fromSurface: true,
      }))).data
      : pngOf(await api.tabs.captureTab(tab, { format: 'png', rect }));
    // After a capture beyond the viewport, answer once it is back to its size (bounded), so a
    // view taken before stays current.
    if (api.debugger && beyond) await viewportBack(tab, geometry);
    // Image pixels per CSS pixel, measured.
    const scale = (await pngWidth(png)) / rect.width;
    png = await blankPng(png, blank, [rect.x, rect.y], scale);
    if (out) png = await cropPng(png, 0, 0, rect.width * scale, rect.height * scale, out[0], out[1]);
    return { png, geometry };
  },
};

// ---- operations --------------------------------------------------------------------------

const OPS = {
  /** Ask the person to confirm one call; answers `accepted`, `declined` or `cancelled`. */
  async confirm(args) {
    const text = typeof args.question === 'string' ? args.question.slice(0, 600) : '';
    if (!text) throw new GlError('invalid', 'a confirmation needs a question');
    return { answer: await ask(text, args.timeout_ms) };
  },

  async tabs_list() {
    const tabs = await api.tabs.query({});
    return Promise.all(tabs.map(async (tab) => ({ tab: tab.id, active: tab.active, page: await pageOf(tab) })));
  },

  /** Tabs driven pages opened since the last call (they are driven from now on). */
  async opened_tabs() {
    const taken = openedByPages;
    openedByPages = [];
    for (const tabId of taken) await mark(tabId).catch(() => {});
    return taken;
  },

  async tab_open({ url, timeout_ms }) {
    // Under rules that refuse hosts, the tab is governed before its first request (a redirect
    // of the first load is a request too): it opens blank, then navigates.
    const restricting = GL_NETWORK.restricting();
    const created = await api.tabs.create({ url: restricting ? 'about:blank' : String(url), active: false });
    if (restricting) {
      await GL_NETWORK.govern(created.id);
      await api.tabs.update(created.id, { url: String(url) });
    }
    await watchDialogs(created.id);
    try {
      const page = await withGate(created.id, await settledPage(created.id, 0, null, timeout_ms, 0, url));
      return { tab: created.id, page };
    } catch (error) {
      // A tab whose page did not load is closed (the caller never gets it), as with WebDriver;
      // the preserve-tabs interlock keeps it open.
      if (error instanceof GlError && error.code === 'network_error' && !preserveTabs) {
        await api.tabs.remove(created.id).catch(() => {});
      }
      throw error;
    }
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

  async page({ tab, gate }) {
    refuseWhileDialog(tab);
    const page = await pageOf(await getTab(tab));
    return gate === true ? withGate(tab, page) : page;
  },

  async navigate({ tab, url, timeout_ms, discard_beforeunload }) {
    await watchDialogs(tab);
    const shown = await getTab(tab);
    const from = await documentOf(tab);
    const before = loads.get(tab) ?? 0;
    const failuresBefore = GL_DIAGNOSTICS.failures(tab);
    const since = Date.now();
    await api.tabs.update(tab, { url: String(url) });
    // Only the fragment changes: the same document scrolls, no load follows.
    if (fragmentOnly(shown.url, url)) return fragmentMoved(tab, url, timeout_ms);
    if (discard_beforeunload === true) await leaveWithoutAsking(tab, before, timeout_ms);
    let page;
    try {
      page = await settledPage(tab, before, from, timeout_ms, failuresBefore, url, since);
    } catch (error) {
      // A refused navigation (or redirect hop) fails the load: not a failure of the page.
      const now = await pageOf(await getTab(tab)).catch(() => null);
      if (!now || !GL_NETWORK.refusedDocument(tab, now.url, since)) throw error;
      page = now;
    }
    return withGate(tab, await keepDocument(tab, page, since, shown.url, timeout_ms));
  },

  async history({ tab, step, bypass_cache, timeout_ms }) {
    const from = await documentOf(tab);
    const before = loads.get(tab) ?? 0;
    const failuresBefore = GL_DIAGNOSTICS.failures(tab);
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
    return withGate(tab, await settledPage(tab, before, from, timeout_ms, failuresBefore));
  },

  async geometry({ tab }) {
    return geometryOf(tab);
  },

  async set_zoom({ tab, percent }) {
    const before = await geometryOf(tab);
    const factor = Number(percent) / 100;
    await api.tabs.setZoom(tab, factor);
    // `setZoom` resolves before the page lays out at the new zoom: wait (bounded) until the
    // page's device scale has moved by the zoom's ratio, so the geometry answered is the new one.
    const wanted = (before.device_scale * factor) / (before.zoom_percent / 100);
    const deadline = Date.now() + ZOOM_SETTLE_MS;
    for (;;) {
      const geometry = await geometryOf(tab);
      if (Math.abs(geometry.device_scale - wanted) < 0.01 || Date.now() >= deadline) return geometry;
      await sleep(POLL_MS);
    }
  },

  async resize_window({ tab, width, height }) {
    const found = await getTab(tab);
    await api.windows.update(found.windowId, { width: Number(width), height: Number(height) });
    // `windows.update` resolves (Firefox) before the page sees its window's new size: wait
    // (bounded; a background tab may never see it) until the page's outer size is the window's,
    // so the viewport answered is the one the page lays out at.
    const deadline = Date.now() + RESIZE_SETTLE_MS;
    for (;;) {
      const [geometry, outer] = await Promise.all([geometryOf(tab), inTab(tab, glOuterSize)]);
      const landed = outer[0] === geometry.window_width && outer[1] === geometry.window_height;
      if (landed || Date.now() >= deadline) return geometry;
      await sleep(POLL_MS);
    }
  },


  async capture_viewport({ tab, blank }) {
    const found = await showTab(tab);
    const { png, geometry, scale } = await settledCapture(tab, found);
    return { png: await blankPng(png, blank, [geometry.scroll_x, geometry.scroll_y], scale), geometry };
  },

  /** Govern the driven tabs' requests by these host patterns (answers once in force). */
  async network_rules(rules) {
    return GL_NETWORK.setRules(rules);
  },

  execute,
  ...INPUT_OPS,
  ...PERCEPTION_OPS,
  ...CAPTURE_OPS,
};

// ---- start -------------------------------------------------------------------------------

api.storage.local.get(['mode', 'preserveTabs']).then(
  (settings) => {
    preserveTabs = settings.preserveTabs === true;
    applyMode(settings.mode);
  },
  () => applyMode('active'),
);

// Diagnostics and failed loads (`diagnostics.js`), recordings (`recording.js`) and authority on
// the wire (`network.js`): Chromium's
// service worker loads them here; Firefox lists them after this file in `background.scripts`.
if (typeof importScripts === 'function') importScripts('diagnostics.js', 'recording.js', 'network.js');
