// Ghostlight load-failure probe: one function expression, run through WebDriver "Execute
// Script" after a navigation. Answers the browser's error code when the tab shows the
// browser's own error page instead of the site, else null:
// - Chromium: a `chrome-error://` document; the code is its `.error-code` text
//   (`ERR_NAME_NOT_RESOLVED`, `ERR_CONNECTION_REFUSED`, …);
// - Firefox: an `about:neterror?e=CODE…` or `about:certerror?e=CODE…` document (`dnsNotFound`,
//   `connectionFailure`, …); certificate errors answer `certerror:CODE`.
(function glLoadFailure() {
  const href = String(window.location.href);
  if (href.startsWith('chrome-error:')) {
    const element = document.querySelector('.error-code');
    const code = element ? String(element.textContent).trim() : '';
    return code || 'ERR_UNKNOWN';
  }
  const uri = String(document.documentURI);
  for (const page of ['about:neterror?', 'about:certerror?']) {
    if (uri.startsWith(page)) {
      const code = new URLSearchParams(uri.slice(page.length)).get('e') || 'unknown';
      return page === 'about:certerror?' ? 'certerror:' + code : code;
    }
  }
  return null;
})
