// Ghostlight element presence: one function expression, run through WebDriver "Execute Script"
// as `return (FN)(arguments[0]);` in the element's own frame. Reads only.
//
// Answers whether `el` is attached to its document and visible (checkVisibility and a
// non-empty client rect).
(function glElementPresent(el) {
  'use strict';
  if (!el || !el.isConnected) return false;
  if (typeof el.checkVisibility === 'function') {
    if (!el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true })) return false;
  } else {
    const view = el.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(el) : null;
    if (!style || style.display === 'none' || style.visibility === 'hidden') return false;
  }
  const rects = el.getClientRects();
  for (let i = 0; i < rects.length; i++) {
    if (rects[i].width > 0 || rects[i].height > 0) return true;
  }
  return false;
})
