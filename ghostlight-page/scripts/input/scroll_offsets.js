// The scroll offsets a scroll noted, read again (`read`), for scroll.js and for the reads that
// follow a scroll until its offsets settle (sent alone: no DOM library needed).
//
// The note, {scrollers, offsets}, is kept in a hidden property of this window by scroll.js.
// `read` answers {status: 'ok', offsets: [...], changed, x, y}: the noted scrollers' current
// offsets, whether any differs from the note, and the top window's offsets (this window's when
// the top is cross-origin).
const NOTE = Symbol.for('gl.scrollNote');
const offsetsOf = (scrollers) => {
  const values = [];
  for (const s of scrollers) {
    if (s.nodeType === 1) {
      values.push(s.scrollLeft, s.scrollTop);
    } else {
      values.push(s.scrollX, s.scrollY);
    }
  }
  return values;
};
const read = () => {
  const note = window[NOTE] || { scrollers: [], offsets: [] };
  const offsets = offsetsOf(note.scrollers);
  const changed = offsets.some((v, i) => v !== note.offsets[i]);
  let top = window;
  try {
    top = window.top.document ? window.top : window;
  } catch (_) {
    top = window;
  }
  return { status: 'ok', offsets, changed, x: top.scrollX, y: top.scrollY };
};
