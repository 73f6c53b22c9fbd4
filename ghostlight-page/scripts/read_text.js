// Ghostlight text reading: one function expression, run through WebDriver "Execute Script" as
// `return (FN)(arguments[0], arguments[1]);`. Reads only; never changes the page.
//
// opts = {mode, max, minArticle, minBlock, maxNodes}
//   mode 'article' the main article, without navigation, ads, footers, banners, asides, forms
//                  and hidden content
//        'visible' the visible text of the page (innerText of the body, without subtrees
//                  outside the accessibility tree: glShownText of dom.js, prepended)
//        'auto'    the article when it has at least `minArticle` characters, else visible
//   max  at most this many UTF-16 units of normalized text (more existing sets `truncated`)
// target = an element to read instead of the page (its visible text), or null.
//
// Returns {text, truncated, source: 'article'|'visible'|'target'}.
//
// Whitespace is normalized: each line's runs of whitespace become one space, lines are
// trimmed, and empty lines are dropped (lines are kept: they carry paragraph breaks).
//
// The article heuristic (a small Readability):
//  1. Every text node's length (at most `maxNodes` nodes) is credited to its *block*: the
//     nearest ancestor that is not an inline element. A block with at least `minBlock`
//     characters, visible and outside noise, is a paragraph.
//  2. Each paragraph scores its length for its parent and half of it for its grandparent.
//  3. The best-scoring element wins; when it lies inside an `article`/`main` element (or the
//     ARIA roles), that semantic element is the article instead (it keeps the headline).
//     Without any paragraph, a sole visible `article`, else `main`, is used; else nothing.
//  4. The article's text is collected from the live DOM, skipping noise (nav, aside, footer,
//     form, page banners, ARIA navigation/banner/contentinfo/complementary/search/form roles,
//     elements whose class or id names an ad, sponsor, promo, share or cookie box, form
//     fields, buttons, scripts) and hidden elements (glVisible of dom.js).
(function glReadText(opts, target) {
  'use strict';
  const MAX = Math.max(0, Number(opts.max) | 0);
  const MIN_ARTICLE = Math.max(0, Number(opts.minArticle) | 0);
  const MIN_BLOCK = Math.max(1, Number(opts.minBlock) | 0);
  const MAX_NODES = Math.max(1, Number(opts.maxNodes) | 0);

  const normalize = (raw) => String(raw == null ? '' : raw)
    .split(/\r\n|\r|\n|\u2028|\u2029/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  const bounded = (raw, source) => {
    const text = normalize(raw);
    return { text: glCut(text, MAX), truncated: text.length > MAX, source };
  };

  const FIELDS = new Set(['input', 'textarea', 'select']);

  if (target) {
    if (FIELDS.has(target.localName) || !target.isConnected || !glVisible(target)) {
      return { text: '', truncated: false, source: 'target' };
    }
    return bounded(glShownText(target), 'target');
  }

  const body = document.body || document.documentElement;
  const visibleText = () => bounded(body ? glShownText(body) : '', 'visible');
  if (opts.mode === 'visible') return visibleText();

  // ---- noise -------------------------------------------------------------------------------
  const NOISE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'script', 'style', 'noscript',
    'template', 'button', 'select', 'textarea', 'input', 'iframe', 'frame', 'object', 'embed',
    'svg', 'canvas', 'dialog', 'menu', 'head']);
  const NOISE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search',
    'form', 'dialog', 'alertdialog', 'menu', 'menubar', 'toolbar']);
  const NOISE_NAMES = /(^|[\s_-])(ad|ads|advert|adverts|advertisement|advertising|sponsor|sponsored|promo|promoted|promotion|share|sharing|social|newsletter|cookie|cookies|consent|related|outbrain|taboola)([\s_-]|$)/i;
  const SCOPING = 'article,aside,main,nav,section';

  function isNoise(el) {
    const tag = el.localName;
    if (NOISE_TAGS.has(tag)) return true;
    if (tag === 'header' && !(el.parentElement && el.parentElement.closest(SCOPING))) return true;
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    if (role && NOISE_ROLES.has(role.split(/\s+/)[0])) return true;
    const marks = (typeof el.className === 'string' ? el.className : '') + ' ' + (el.id || '');
    return marks.trim() !== '' && NOISE_NAMES.test(marks);
  }
  function inNoise(el, stop) {
    for (let node = el; node && node !== stop; node = node.parentElement) {
      if (isNoise(node)) return true;
    }
    return false;
  }

  // ---- choose the article root -------------------------------------------------------------
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em',
    'font', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub',
    'sup', 'time', 'u', 'var', 'wbr', 'br', 'del', 'ins']);
  const SEMANTIC = 'article,main,[role="article"],[role="main"]';

  function chooseRoot() {
    if (!document.body) return null;
    const blockLength = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let nodes = 0;
    for (let node = walker.nextNode(); node && nodes < MAX_NODES; node = walker.nextNode()) {
      nodes++;
      const length = node.data.replace(/\s+/g, ' ').trim().length;
      if (length === 0) continue;
      let block = node.parentElement;
      while (block && INLINE.has(block.localName) && block.parentElement) block = block.parentElement;
      if (!block) continue;
      blockLength.set(block, (blockLength.get(block) || 0) + length);
    }
    const scores = new Map();
    for (const [block, length] of blockLength) {
      if (length < MIN_BLOCK || block === document.body) continue;
      if (inNoise(block, null) || !glVisible(block)) continue;
      const parent = block.parentElement;
      if (parent) scores.set(parent, (scores.get(parent) || 0) + length);
      const grand = parent ? parent.parentElement : null;
      if (grand) scores.set(grand, (scores.get(grand) || 0) + length / 2);
    }
    let best = null;
    let bestScore = 0;
    for (const [el, score] of scores) {
      if (score > bestScore) { best = el; bestScore = score; }
    }
    if (best) {
      const semantic = best.closest(SEMANTIC);
      return semantic || best;
    }
    const candidates = Array.from(document.querySelectorAll(SEMANTIC)).filter(
      (el) => glVisible(el) && !inNoise(el, null));
    const articles = candidates.filter((el) => el.matches('article,[role="article"]'));
    if (articles.length === 1) return articles[0];
    const mains = candidates.filter((el) => el.matches('main,[role="main"]'));
    return mains.length === 1 ? mains[0] : null;
  }

  // ---- collect the article's text ----------------------------------------------------------
  const BREAK_AFTER = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'tr', 'table', 'blockquote',
    'pre', 'figure', 'figcaption', 'caption', 'hr', 'br', 'details', 'summary', 'address']);
  const CELL = new Set(['td', 'th']);
  // Enough raw text to fill `max` normalized characters, with room to see that more exists.
  const RAW_LIMIT = MAX * 2 + 1024;

  function collect(rootEl) {
    const parts = [];
    let length = 0;
    const stack = [rootEl];
    while (stack.length && length <= RAW_LIMIT) {
      const node = stack.pop();
      if (typeof node === 'string') {
        parts.push(node);
        continue;
      }
      if (node.nodeType === 3) {
        parts.push(node.data);
        length += node.data.length;
        continue;
      }
      if (node.nodeType !== 1) continue;
      if (node !== rootEl && (isNoise(node) || !glVisible(node))) continue;
      const tag = node.localName;
      if (BREAK_AFTER.has(tag)) stack.push('\n');
      else if (CELL.has(tag)) stack.push(' ');
      const kids = node.childNodes;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      if (BREAK_AFTER.has(tag)) stack.push('\n');
    }
    const text = normalize(parts.join(''));
    const more = stack.some((n) => typeof n !== 'string');
    return { text: glCut(text, MAX), truncated: text.length > MAX || more, source: 'article' };
  }

  const rootEl = chooseRoot();
  const article = rootEl ? collect(rootEl) : { text: '', truncated: false, source: 'article' };
  if (opts.mode === 'article') return article;
  if (article.text.length >= MIN_ARTICLE) return article;
  return visibleText();
})
