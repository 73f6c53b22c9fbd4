// Authority on the wire for the tabs Ghostlight drives: no request of theirs (or of the tabs
// their pages open) leaves the browser for a host outside the rules the server sends
// (`network_rules`: the host patterns of `ghostlight_core::port::WireRules`). The person's
// other tabs are never touched.
//
// - Chromium: `declarativeNetRequest` session rules scoped to the governed tabs (`tabIds`):
//   block everything, allow the allowed hosts (and, for subresources, the resource hosts),
//   block the denied hosts above both. WebSocket, pings, objects and frames are resource types
//   of their own, so they are covered. What a rule blocked is seen by `webRequest.onErrorOccurred`
//   (`net::ERR_BLOCKED_BY_CLIENT`) and reported to the server.
// - Firefox: a blocking `webRequest.onBeforeRequest` listener decides every request of a
//   governed tab (WebSocket and `<object>` loads included); a popup's first load, whose tab is
//   not known yet, is decided once its opener is known.
// - WebRTC: an extension can set `privacy.network.webRTCIPHandlingPolicy` only for the whole
//   browser, the person's own tabs included, so the connector leaves it alone: a governed
//   page's WebRTC traffic over UDP is not governed (README says so).
//
// Reports carry `scheme://host:port/` and the request's kind only. Loaded after background.js
// (Firefox: `background.scripts`; Chromium: `importScripts`), whose `api`, `ENGINE`, `port`,
// `send` and `driven` it uses.

'use strict';

const GL_NETWORK = (() => {
  /** The rules in force: `{allowed, denied, resources}` of parsed patterns, or null (none yet). */
  let rules = null;
  /** Whether the rules admit every request (then nothing is installed). */
  let open = true;
  /** Tabs whose requests are governed: the driven tabs and the tabs their pages opened. */
  const governed = new Set();
  /** The first id of this file's session rules (other files keep theirs below it). */
  const RULE_BASE = 1000;
  const RESOURCE_TYPES = ['main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'object',
    'xmlhttprequest', 'ping', 'csp_report', 'media', 'websocket', 'webtransport', 'webbundle', 'other'];
  const DOCUMENT_TYPES = new Set(['main_frame', 'sub_frame', 'object', 'object_subrequest']);

  /** A host pattern as `[hosts]` writes it: `*`, `*.example.com`, `example.com`, `[::1]`, each with an optional `:port`. */
  function parsePattern(text) {
    const match = /^(\*|\*\.[^:\]]+|\[[0-9a-f:.]+\]|[^:\[\]]+)(?::(\d+))?$/i.exec(String(text));
    if (!match) return null;
    const host = match[1].toLowerCase();
    const port = match[2] ? Number(match[2]) : null;
    if (host === '*') return { kind: 'any', port };
    if (host.startsWith('*.')) return { kind: 'sub', name: host.slice(2), port };
    return { kind: 'exact', name: host, port };
  }

  /** The host and port a request to `url` reaches; null for what is no network request to a host. */
  function siteOf(url) {
    let parsed;
    try {
      parsed = new URL(url);
    } catch (_) {
      return null;
    }
    const defaults = { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443 };
    if (!(parsed.protocol in defaults)) return null;
    const port = parsed.port ? Number(parsed.port) : defaults[parsed.protocol];
    return { host: parsed.hostname.toLowerCase(), port, scheme: parsed.protocol.slice(0, -1) };
  }

  function matches(pattern, site) {
    if (pattern.port !== null && pattern.port !== site.port) return false;
    if (pattern.kind === 'any') return true;
    if (pattern.kind === 'exact') return pattern.name === site.host;
    return site.host.endsWith(`.${pattern.name}`) && site.host.length > pattern.name.length + 1;
  }

  /** Whether a request of `kind` to `url` may go (the rules of `ghostlight_core::port::WireRules`). */
  function admits(url, kind) {
    if (!rules) return true;
    const site = siteOf(url);
    if (!site) return true;
    if (rules.denied.some((p) => matches(p, site))) return false;
    if (rules.allowed.some((p) => matches(p, site))) return true;
    return kind === 'resource' && rules.resources.some((p) => matches(p, site));
  }

  function kindOf(type) {
    if (type === 'main_frame') return 'document';
    if (DOCUMENT_TYPES.has(type)) return 'frame';
    return 'resource';
  }

  /** Refused requests that may have been a tab's document, newest last (bounded). */
  const refusedDocuments = [];
  const MAX_REFUSED_DOCUMENTS = 64;

  function report(url, kind, tabId) {
    const site = siteOf(url);
    if (!site) return;
    lastRefusal.set(tabId, Date.now());
    if (kind !== 'resource') {
      refusedDocuments.push({ tabId, host: site.host, port: site.port, kind, at: Date.now() });
      if (refusedDocuments.length > MAX_REFUSED_DOCUMENTS) refusedDocuments.shift();
    }
    if (!port) return;
    const host = site.host.includes(':') && !site.host.startsWith('[') ? `[${site.host}]` : site.host;
    send(port, { type: 'refused', url: `${site.scheme}://${host}:${site.port}/`, kind });
  }

  /** When a request of each tab was last refused. */
  const lastRefusal = new Map();
  /** How long without a refusal ends a burst of them. */
  const REFUSAL_QUIET_MS = 50;
  /** The longest wait for a burst of refusals to end. */
  const REFUSAL_SETTLE_MS = 250;

  /**
   * When `tabId` had a request refused at or after `since` (its page answered the input
   * with requests), wait until its refusals pause for a moment (bounded), so those its page
   * started together are reported with the call that caused them; the browser decides each
   * one a little later than the page sent it.
   */
  async function settle(tabId, since) {
    const deadline = Date.now() + REFUSAL_SETTLE_MS;
    for (;;) {
      const last = lastRefusal.get(tabId);
      if (last === undefined || last < since) return;
      const quietFor = Date.now() - last;
      if (quietFor >= REFUSAL_QUIET_MS || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(REFUSAL_QUIET_MS - quietFor, deadline - Date.now())));
    }
  }

  /** Whether a top-level document request of `tabId` was refused at or after `since`. */
  function refusedSince(tabId, since) {
    return refusedDocuments.some((r) => r.tabId === tabId && r.kind === 'document' && r.at >= since);
  }

  /** Whether `tabId` shows `url` because its document request was refused at or after `since`. */
  function refusedDocument(tabId, url, since) {
    const site = siteOf(url);
    if (!site) return false;
    return refusedDocuments.some((r) => r.tabId === tabId && r.at >= since && r.host === site.host && r.port === site.port);
  }

  // ---- Chromium: declarative rules -------------------------------------------------------

  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** A regular expression (RE2) for the URLs a pattern matches, of any web scheme. */
  function regexOf(pattern) {
    const host = pattern.kind === 'any'
      ? '[^/?#:@\\[\\]]+|\\[[0-9a-f:.]+\\]'
      : pattern.kind === 'sub'
        ? `(?:[^/?#:@.]+\\.)+${escape(pattern.name)}`
        : escape(pattern.name);
    const end = '(?:[/?#]|$)';
    if (pattern.port === null) return `^[a-z]+://(?:${host})(?::[0-9]+)?${end}`;
    const explicit = `^[a-z]+://(?:${host}):${pattern.port}${end}`;
    if (pattern.port === 443) return `${explicit}|^(?:https|wss)://(?:${host})${end}`;
    if (pattern.port === 80) return `${explicit}|^(?:http|ws)://(?:${host})${end}`;
    return explicit;
  }

  /**
   * Until when new tabs count as governed from their first request (see `activated`): a tab a
   * driven page opens gets its id only once it exists, and a rule naming it then comes too
   * late for its first request.
   */
  let activationUntil = 0;
  let activationTimer = null;
  /** How long after input a page may open a tab (Chromium's user activation lasts 5 s). */
  const ACTIVATION_MS = 5500;
  /** Installs run one after the other (each reads the rules in force). */
  let installing = Promise.resolve();

  function installDnr() {
    installing = installing.then(installDnrNow, installDnrNow);
    return installing;
  }

  async function installDnrNow() {
    const dnr = api.declarativeNetRequest;
    if (!dnr) return;
    const existing = await dnr.getSessionRules();
    const removeRuleIds = existing.map((rule) => rule.id).filter((id) => id >= RULE_BASE);
    const addRules = [];
    if (rules && !open && governed.size > 0) {
      // Normally the governed tabs by id. While a driven page may open tabs, every tab but
      // the person's own existing ones, so a new tab is governed from its first request.
      let scope = { tabIds: [...governed] };
      if (Date.now() < activationUntil) {
        const tabs = await api.tabs.query({});
        scope = { excludedTabIds: tabs.map((tab) => tab.id).filter((id) => !governed.has(id)) };
      }
      let id = RULE_BASE;
      addRules.push({ id: id++, priority: 1, action: { type: 'block' }, condition: { ...scope, resourceTypes: RESOURCE_TYPES } });
      for (const pattern of rules.allowed) {
        addRules.push({ id: id++, priority: 2, action: { type: 'allow' }, condition: { ...scope, regexFilter: regexOf(pattern), resourceTypes: RESOURCE_TYPES } });
      }
      const subresources = RESOURCE_TYPES.filter((type) => !DOCUMENT_TYPES.has(type));
      for (const pattern of rules.resources) {
        addRules.push({ id: id++, priority: 2, action: { type: 'allow' }, condition: { ...scope, regexFilter: regexOf(pattern), resourceTypes: subresources } });
      }
      for (const pattern of rules.denied) {
        addRules.push({ id: id++, priority: 3, action: { type: 'block' }, condition: { ...scope, regexFilter: regexOf(pattern), resourceTypes: RESOURCE_TYPES } });
      }
    }
    await dnr.updateSessionRules({ removeRuleIds, addRules });
  }

  // ---- Firefox: a blocking listener ------------------------------------------------------

  /** Whether `tabId` is governed, also for a popup whose tab was not seen yet (its opener decides). */
  async function governedTab(tabId) {
    if (governed.has(tabId)) return true;
    const tab = await api.tabs.get(tabId).catch(() => null);
    if (tab && tab.openerTabId !== undefined && governed.has(tab.openerTabId)) {
      governed.add(tabId);
      return true;
    }
    return false;
  }

  /** Firefox's blocking listener; registered only while the rules refuse hosts (a blocking
   * listener costs every request of the browser a round trip to this background). */
  function decideFirefox(details) {
    if (!rules || open || details.tabId < 0) return {};
    const kind = kindOf(details.type);
    const decide = () => {
      if (admits(details.url, kind)) return {};
      report(details.url, kind, details.tabId);
      return { cancel: true };
    };
    if (governed.has(details.tabId)) return decide();
    // A popup's first load comes before the tab is known here: its opener decides.
    if (details.type !== 'main_frame') return {};
    return governedTab(details.tabId).then((yes) => (yes ? decide() : {}));
  }

  function listenFirefox(on) {
    const events = api.webRequest && api.webRequest.onBeforeRequest;
    if (ENGINE !== 'firefox' || !events) return;
    const listening = events.hasListener(decideFirefox);
    if (on && !listening) events.addListener(decideFirefox, { urls: ['<all_urls>'] }, ['blocking']);
    if (!on && listening) events.removeListener(decideFirefox);
  }

  // Chromium: what the rules blocked (Firefox reports from its listener).
  if (ENGINE === 'chromium' && api.webRequest && api.webRequest.onErrorOccurred) {
    api.webRequest.onErrorOccurred.addListener(
      (details) => {
        if (details.error !== 'net::ERR_BLOCKED_BY_CLIENT') return;
        // A tab a driven page just opened may not be known yet: within the activation window
        // the rules covered it, so its block is ours.
        if (!governed.has(details.tabId) && Date.now() >= activationUntil) return;
        const kind = kindOf(details.type);
        if (!admits(details.url, kind)) report(details.url, kind, details.tabId);
      },
      { urls: ['<all_urls>'] },
    );
  }

  api.tabs.onCreated.addListener((tab) => {
    if (tab.openerTabId !== undefined && governed.has(tab.openerTabId)) {
      governed.add(tab.id);
      if (ENGINE === 'chromium') installDnr().catch(() => {});
    }
    // Otherwise the tab stays in the activation scope until its source is known: Chromium's
    // `openerTabId` names the tab that was active in the window, not the page that opened it
    // (a driven tab in the background opens a popup "from" the person's active tab).
  });
  // Where a new tab's first navigation came from (`sourceTabId`: the page that opened it).
  if (api.webNavigation && api.webNavigation.onCreatedNavigationTarget) {
    api.webNavigation.onCreatedNavigationTarget.addListener((details) => {
      if (governed.has(details.sourceTabId)) {
        if (governed.has(details.tabId)) return;
        governed.add(details.tabId);
        if (ENGINE === 'chromium') installDnr().catch(() => {});
      } else if (ENGINE === 'chromium' && Date.now() < activationUntil) {
        // A page of the person's opened it: out of the activation scope at once.
        installDnr().catch(() => {});
      }
    });
  }
  api.tabs.onRemoved.addListener((tabId) => {
    lastRefusal.delete(tabId);
    if (governed.delete(tabId) && ENGINE === 'chromium') installDnr().catch(() => {});
  });

  return {
    /** Put `next` (`{allowed, denied, resources}` of pattern texts) in force. */
    async setRules(next) {
      const parse = (list) => (Array.isArray(list) ? list.map(parsePattern).filter(Boolean) : []);
      rules = { allowed: parse(next.allowed), denied: parse(next.denied), resources: parse(next.resources) };
      open = rules.denied.length === 0 && rules.allowed.some((p) => p.kind === 'any' && p.port === null);
      if (ENGINE === 'chromium') await installDnr();
      listenFirefox(!open);
      return null;
    },
    /** Govern `tabId`'s requests from now on (a tab Ghostlight drives). */
    async govern(tabId) {
      if (governed.has(tabId)) return;
      governed.add(tabId);
      if (ENGINE === 'chromium' && rules && !open) await installDnr();
    },
    /**
     * Input is about to reach the driven tab `tabId`: for the next moments its page may open
     * tabs (user activation), so on Chromium new tabs are governed from their first request
     * until the window ends (Firefox decides a new tab's first request by its opener).
     */
    async activated(tabId) {
      if (ENGINE !== 'chromium' || !rules || open || !governed.has(tabId)) return;
      const wasActive = Date.now() < activationUntil;
      activationUntil = Date.now() + ACTIVATION_MS;
      clearTimeout(activationTimer);
      activationTimer = setTimeout(() => installDnr().catch(() => {}), ACTIVATION_MS + 50);
      if (!wasActive) await installDnr();
    },
    /** Whether requests are governed by rules that refuse some hosts. */
    restricting() {
      return rules !== null && !open;
    },
    admits,
    refusedDocument,
    refusedSince,
    settle,
  };
})();
