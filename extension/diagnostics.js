// Ghostlight extension: console and network evidence (`browser_diagnose`) and failed loads.
//
// Loaded right after background.js: by the `importScripts` at the end of background.js in
// Chromium's service worker, and listed after it in `background.scripts` on Firefox. It adds
// its operation to background.js's `OPS`; the helpers it calls (`GlError`, `getTab`,
// `holdDebugger`, `held`) are background.js's, and background.js calls `GL_DIAGNOSTICS`'s
// `failures`, `failedSince` and `consoleWatched`.
//
// Evidence. Tracking is opt-in per tab: the server's first `diagnostics_take` of a tab starts
// it (the answer says `started`), and every later one hands over what was gathered since, in
// order, then forgets it (the server keeps the bounded, cursor-read log; its bounds travel
// with each request). Nothing is gathered for a tab nobody asked about, and nothing is stored,
// logged or sent anywhere but in that answer.
// - Network, both engines: `webRequest.onCompleted` (a response: method, status, URL) and
//   `webRequest.onErrorOccurred` (a failed request: method, URL), observed only, never
//   blocked, without headers or bodies (no `extraInfoSpec`). The URL loses its userinfo,
//   query and fragment here already.
// - Console, Chromium: the debugger attached to the tab (background.js keeps it attached for
//   dialogs) with `Runtime` and `Log` enabled once tracking starts: `Runtime.consoleAPICalled`
//   (the arguments' values joined, no stack), `Runtime.exceptionThrown` (the error's first
//   line, no stack) and `Log.entryAdded` (the browser's own messages, except its network
//   ones, which the network evidence already holds). Only the tab's own frames are seen
//   (frames in another process are not).
// - Console, Firefox: not gathered. Firefox gives extensions no access to a page's console;
//   a main-world script wrapping `console` and `onerror` would report only what the page lets
//   it (a hostile page can suppress or forge those), so the answer says `console: false` and
//   the server refuses the console source there.
//
// Failed loads: `webNavigation.onErrorOccurred` of a tab's top frame notes the browser's
// error code (`net::ERR_CONNECTION_REFUSED` on Chromium). Firefox gives a number there
// ("Error code 2152398861"): the common ones are named here (`NS_ERROR_CONNECTION_REFUSED`),
// else its `webRequest.onErrorOccurred` of the same top-frame request names it. An aborted
// load (another navigation replaced it, a redirect, a download) is not a failure. Firefox
// reports no event an extension sees for a port it refuses to use (`deniedPortAccess`): that
// navigation runs into its timeout. A wait for a load (`settle`) answers `network_error` with the
// code as soon as one is noted after it began.
'use strict';

const GL_DIAGNOSTICS = (() => {
  const diagApi = globalThis.browser ?? globalThis.chrome;
  /** Console levels as the server names them. */
  const CONSOLE_LEVELS = { error: 'error', assert: 'error', warning: 'warning', warn: 'warning', debug: 'debug', verbose: 'debug' };
  /** The longest URL kept (the server cuts again; this only bounds the answer). */
  const MAX_URL_CHARS = 4096;
  /** Aborted loads: another navigation took their place. */
  const ABORTED = new Set(['net::ERR_ABORTED', 'NS_BINDING_ABORTED', 'NS_ERROR_ABORT', 'NS_BINDING_REDIRECTED', 'NS_BINDING_RETARGETED']);

  /** Tracked tabs: tabId → {entries, lost, max, maxText, console (Chromium: domains enabled)}. */
  const tracked = new Map();
  /** Top-frame load failures per tab: tabId → {count, code}. */
  const failures = new Map();
  /** The last top-frame request error per tab (Firefox names its codes only there). */
  const requestErrors = new Map();

  diagApi.tabs.onRemoved.addListener((tabId) => {
    tracked.delete(tabId);
    failures.delete(tabId);
    requestErrors.delete(tabId);
  });

  /** A URL without userinfo, query and fragment, bounded; other schemes keep their scheme. */
  function bareUrl(text) {
    let url;
    try {
      url = new URL(String(text));
    } catch (_) {
      return null;
    }
    if (!/^(https?|wss?):$/.test(url.protocol)) return url.protocol;
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    const bare = url.href;
    return bare.length > MAX_URL_CHARS ? url.origin + '/' : bare;
  }

  /** File `entry` for a tracked tab, dropping (and counting) the oldest past the bound. */
  function gather(tabId, entry) {
    const watch = tracked.get(tabId);
    if (!watch) return;
    if (watch.entries.length >= watch.max) {
      watch.entries.shift();
      watch.lost += 1;
    }
    watch.entries.push(entry);
  }

  function consoleEntry(tabId, level, text) {
    const watch = tracked.get(tabId);
    if (!watch) return;
    gather(tabId, { source: 'console', level, text: String(text ?? '').slice(0, watch.maxText) });
  }

  // ---- network (both engines) ----

  if (diagApi.webRequest) {
    const filter = { urls: ['<all_urls>'] };
    diagApi.webRequest.onCompleted.addListener((d) => {
      if (d.tabId < 0) return;
      gather(d.tabId, { source: 'network', method: String(d.method ?? ''), status: Number(d.statusCode) || 0, url: bareUrl(d.url), failed: false });
    }, filter);
    diagApi.webRequest.onErrorOccurred.addListener((d) => {
      if (d.tabId < 0) return;
      if (d.type === 'main_frame') requestErrors.set(d.tabId, String(d.error ?? ''));
      gather(d.tabId, { source: 'network', method: String(d.method ?? ''), status: 0, url: bareUrl(d.url), failed: true });
    }, filter);
  }

  // ---- console (Chromium) ----

  /** A DevTools remote object as text: a primitive's value, else its description. */
  function argText(arg) {
    if (!arg || typeof arg !== 'object') return '';
    if (arg.type === 'string') return String(arg.value);
    if (arg.value !== undefined) return String(arg.value);
    if (arg.unserializableValue !== undefined) return String(arg.unserializableValue);
    return String(arg.description ?? arg.type ?? '');
  }

  if (diagApi.debugger) {
    diagApi.debugger.onEvent.addListener((source, method, params) => {
      const watch = tracked.get(source.tabId);
      if (!watch || !watch.console || !params) return;
      if (method === 'Runtime.consoleAPICalled') {
        const args = Array.isArray(params.args) ? params.args : [];
        consoleEntry(source.tabId, CONSOLE_LEVELS[params.type] ?? 'info', args.map(argText).join(' '));
      } else if (method === 'Runtime.exceptionThrown') {
        const details = params.exceptionDetails || {};
        const description = details.exception && details.exception.description;
        const text = typeof description === 'string' ? description.split('\n')[0] : details.text;
        consoleEntry(source.tabId, 'exception', text);
      } else if (method === 'Log.entryAdded') {
        const entry = params.entry || {};
        if (entry.source === 'network') return;
        consoleEntry(source.tabId, CONSOLE_LEVELS[entry.level] ?? 'info', entry.text);
      }
    });
    diagApi.debugger.onDetach.addListener((source) => {
      const watch = tracked.get(source.tabId);
      if (watch) watch.console = false;
    });
  }

  /** Chromium: the tab's console domains on (once per attachment). */
  async function watchConsole(tabId, watch) {
    if (!diagApi.debugger || watch.console) return;
    await holdDebugger(tabId);
    const target = { tabId };
    await diagApi.debugger.sendCommand(target, 'Runtime.enable', {});
    await diagApi.debugger.sendCommand(target, 'Log.enable', {});
    watch.console = true;
  }

  // ---- failed loads ----

  /** Whether `code` is a name (`net::ERR_…`, `NS_ERROR_…`) rather than a number. */
  const named = (code) => /^(net::)?[A-Z][A-Z0-9_]+$/.test(code);
  /** Firefox's `webNavigation` codes ("Error code N") by name, for the failures it names so. */
  const FIREFOX_CODES = new Map([
    [0x804b0002, 'NS_BINDING_ABORTED'],
    [0x804b0003, 'NS_BINDING_REDIRECTED'],
    [0x804b0004, 'NS_BINDING_RETARGETED'],
    [0x80004004, 'NS_ERROR_ABORT'],
    [0x804b000d, 'NS_ERROR_CONNECTION_REFUSED'],
    [0x804b000e, 'NS_ERROR_NET_TIMEOUT'],
    [0x804b0010, 'NS_ERROR_OFFLINE'],
    [0x804b0013, 'NS_ERROR_PORT_ACCESS_NOT_ALLOWED'],
    [0x804b0014, 'NS_ERROR_NET_RESET'],
    [0x804b001e, 'NS_ERROR_UNKNOWN_HOST'],
    [0x804b001f, 'NS_ERROR_REDIRECT_LOOP'],
    [0x804b0047, 'NS_ERROR_NET_INTERRUPT'],
  ]);
  /** A code by name where the number is known ("Error code 2152398861" → its name). */
  function codeName(code) {
    const number = /^Error code (\d+)$/.exec(code);
    return (number && FIREFOX_CODES.get(Number(number[1]))) || code;
  }

  if (diagApi.webNavigation) {
    diagApi.webNavigation.onErrorOccurred.addListener((d) => {
      if (d.frameId !== 0 || d.tabId < 0) return;
      const given = codeName(String(d.error ?? ''));
      const code = named(given) ? given : (requestErrors.get(d.tabId) || given);
      requestErrors.delete(d.tabId);
      if (ABORTED.has(code)) return;
      const previous = failures.get(d.tabId);
      failures.set(d.tabId, { count: (previous ? previous.count : 0) + 1, code: code || 'unknown' });
    });
  }

  const ops = {
    /**
     * Start tracking the tab (first call) and hand over what was gathered since the last
     * call: `{started, console, entries, lost}` (`lost`: entries dropped past `max_entries`).
     */
    async diagnostics_take({ tab, max_entries, max_text_chars }) {
      await getTab(tab);
      let watch = tracked.get(tab);
      const started = !watch;
      if (!watch) {
        watch = { entries: [], lost: 0, max: 1, maxText: 0, console: false };
        tracked.set(tab, watch);
      }
      watch.max = Math.max(1, Math.floor(Number(max_entries) || 1));
      watch.maxText = Math.max(0, Math.floor(Number(max_text_chars) || 0));
      // A dialog holds DevTools commands: the console is switched on at the next call.
      const entry = held.get(tab);
      if (!(entry && entry.dialog)) await watchConsole(tab, watch).catch(() => {});
      const { entries, lost } = watch;
      watch.entries = [];
      watch.lost = 0;
      return { started, console: watch.console, entries, lost };
    },
  };
  Object.assign(OPS, ops);

  return {
    /** The tab's top-frame load failures so far (a mark for `failedSince`). */
    failures: (tabId) => (failures.get(tabId) ?? { count: 0 }).count,
    /** The browser's code of a top-frame load failure noted after `mark`, else null. */
    failedSince: (tabId, mark) => {
      const failure = failures.get(tabId);
      return failure && failure.count > mark ? failure.code : null;
    },
    /** Whether the tab's console is tracked (its `Runtime` domain must stay enabled). */
    consoleWatched: (tabId) => tracked.get(tabId)?.console === true,
  };
})();
