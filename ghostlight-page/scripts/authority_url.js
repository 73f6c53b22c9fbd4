// The URL a document is governed by (the gate decides it, ops/frames.rs): its own URL, or, for
// a document without an origin of its own (about:blank, about:srcdoc, data:), the origin it
// inherited from the document that created or navigated it: an about: document made by a page
// has that page's origin; a data: document, and any document of an opaque origin (a sandboxed
// frame), has none that could be named, so it answers `data:,`, which the gate refuses
// (unknown means denied). A frame that navigates itself to about:blank keeps the origin it had,
// so a refused frame stays refused.
function glAuthorityUrl(d) {
  const url = String(d.URL);
  if (!/^(about|data):/i.test(url)) return url;
  let origin = 'null';
  try {
    origin = d.defaultView ? String(d.defaultView.origin) : 'null';
  } catch (_) {
    origin = 'null';
  }
  return origin === 'null' || !/^https?:\/\//i.test(origin) ? 'data:,' : `${origin}/`;
}
