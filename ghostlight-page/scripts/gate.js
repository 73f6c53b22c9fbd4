// Ghostlight gate detection: () → 'challenge' | 'rate_limit' | 'consent' | 'login' | null, for the
// top document once complete. Precision first: a rendered challenge widget, a blocking consent
// layer, or two independent signals on a sparse page (see ghostlight_page::scripts::GATE_FN).
(function glGate() {
  const d = document, w = window, b = d.body;
  if (!b || d.readyState !== 'complete') return null;
  const vw = w.innerWidth || 1, vh = w.innerHeight || 1;
  const all = (sel, root) => Array.from((root || d).querySelectorAll(sel));
  const box = (el) => {
    const s = w.getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? r : null;
  };
  // The share of the viewport an element's box covers.
  const cover = (r) => (Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) *
    Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0))) / (vw * vh);
  const text = (el) => String(el.innerText || '').trim();
  // A page of more than 100,000 characters is never sparse: its text is not laid out here.
  const raw = b.textContent.length;
  const body = raw > 100000 ? '' : text(b);
  const size = raw > 100000 ? raw : body.length;
  const sparse = size < 2000;
  const head = all('h1,h2,[role=heading]').slice(0, 12).filter(box).slice(0, 6).map(text).join('\n');
  const title = String(d.title || '');
  const chrome = 'header,nav,footer,aside';
  const buttons = (root) => all('button,[role=button],input[type=submit],input[type=button]', root)
    .filter(box).map((el) => (el.value && el.tagName === 'INPUT' ? el.value : text(el)).slice(0, 60));
  const count = (re, ...where) => where.filter((s) => re.test(s)).length;

  // A rendered challenge widget of a known provider (never reCAPTCHA's invisible badge).
  const PROVIDER = /recaptcha|hcaptcha|turnstile|challenges\.cloudflare|arkoselabs|funcaptcha|captcha-delivery|datadome|px-captcha|cf-challenge|challenge-(?:stage|form|platform)/i;
  for (const el of all('iframe,.g-recaptcha,.h-captcha,.cf-turnstile,#px-captcha,#challenge-stage,#challenge-form,#cf-challenge-running,[class*=captcha i],[id*=captcha i]')) {
    const src = String(el.getAttribute('src') || '');
    const about = `${src} ${el.getAttribute('title') || ''} ${el.id} ${el.getAttribute('class') || ''}`;
    if (!PROVIDER.test(about) || /size=invisible/.test(src) || el.closest('.grecaptcha-badge')) continue;
    if (el.getAttribute('data-size') === 'invisible') continue;
    const r = box(el);
    if (r && r.width >= 60 && r.height >= 30 && (size < 3000 || cover(r) >= 0.15)) return 'challenge';
  }
  const lead = body.slice(0, 3000);
  if (sparse) {
    const CHECK = /verify (?:that )?you(?:'re| are)(?: a)? human|are you a (?:robot|human)|not a robot|human verification|checking (?:your browser|if the site connection is secure)|just a moment\.\.\.|press (?:&|and) hold|unusual traffic|security check/i;
    const PAGE = /enable javascript and cookies to continue|review the security of your connection|ray id|complete the (?:security )?check/i;
    if (count(CHECK, title, head) + count(PAGE, lead) >= 2) return 'challenge';
    const LIMIT = /too many requests|rate[ -]?limit(?:ed| exceeded)|request limit (?:exceeded|reached)|(?:error|http|status|code)\W{0,3}429\b/i;
    let status = 0;
    try {
      status = w.performance.getEntriesByType('navigation')[0].responseStatus || 0;
    } catch (_) {}
    const limited = count(LIMIT, title, head);
    if (limited && limited + (status === 429) + count(/try again (?:later|in \d)|slow down|retry after/i, lead) >= 2) {
      return 'rate_limit';
    }
  }

  // A consent layer: a fixed layer over the viewport's centre that blocks the page, with
  // consent wording and an answer button; or a sparse page that only asks for consent.
  const CONSENT = /cookie|consent|gdpr|personal data|personali[sz]ed (?:ads|content)|datenschutz|einwilligung/i;
  const ANSWER = /^(?:accept|agree|allow|i agree|i accept|ok\b|got it|reject|decline|deny|manage|customi[sz]e|continue|consent|yes)|akzeptieren|zustimmen|accepter|aceptar|accetta/i;
  let layer = null, blocked = false;
  for (const el of d.elementsFromPoint(vw / 2, vh / 2).slice(0, 12)) {
    for (let e = el; e && e !== b && e !== d.documentElement; e = e.parentElement) {
      const p = w.getComputedStyle(e).position;
      if (p !== 'fixed') continue;
      const r = box(e);
      let modal = false;
      try {
        modal = e.matches(':modal,[aria-modal=true]');
      } catch (_) {}
      if (r && (cover(r) >= 0.4 || (modal && cover(r) >= 0.1))) blocked = true;
      layer = layer || e;
      break;
    }
  }
  if (blocked && layer) {
    // A consent manager's own frame: its title, id or address says what it is.
    const frames = (layer.tagName === 'IFRAME' ? [layer] : all('iframe', layer)).filter(box)
      .map((f) => `${f.title} ${f.id} ${f.getAttribute('src')}`).join(' ');
    // A layer holding the whole page (an app shell) is not a prompt over it.
    const words = text(layer);
    if (CONSENT.test(frames) || (words.length < 3000 && CONSENT.test(words) && buttons(layer).some((t) => ANSWER.test(t)))) {
      return 'consent';
    }
  }
  if (sparse && count(CONSENT, title, head) && buttons().some((t) => ANSWER.test(t))) {
    if (!all('input[type=password]').some(box)) return 'consent';
  }

  // A sign-in wall: a password (or account) field outside the page's chrome on a sparse page,
  // with sign-in wording in the title, a heading or a button.
  if (!sparse) return null;
  const field = (sel) => all(sel).filter((el) => !el.closest(chrome) && box(el));
  const LOGIN = /\b(?:sign|log)[ -]?in\b|\blogin\b|anmelden|se connecter|connexion|iniciar sesi[oó]n|accedi|inloggen/i;
  const said = count(LOGIN, title, head) + (buttons().some((t) => LOGIN.test(t)) ? 1 : 0);
  if (field('input[type=password]').length && said) return 'login';
  if (field('input[type=email],input[autocomplete~=username]').length && said >= 2) return 'login';
  return null;
})
