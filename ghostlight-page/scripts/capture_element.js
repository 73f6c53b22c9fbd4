// Ghostlight capture: where an element sits in the top-level document.
//
// One function expression, run through WebDriver "Execute Script" in the element's own frame
// as `return (fn)(element, scroll)`. With `scroll` true it first scrolls the element into view
// (nearest edge, instantly: Firefox would otherwise scroll smoothly). Answers
// {x, y, width, height, complete}: the element's border box in document CSS pixels of the
// top-level document (its client rect, plus the content-box offset of every same-origin
// iframe on the way up, plus the top-level scroll offsets). `complete` is false when a parent
// document could not be reached (cross-origin), so the offsets are partial. Reads only
// geometry: no page text.
(function glCaptureElement(element, scroll) {
  if (scroll) {
    element.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  }
  const box = element.getBoundingClientRect();
  let x = box.left;
  let y = box.top;
  let w = window;
  let complete = true;
  while (w !== w.top) {
    let frame = null;
    try {
      frame = w.frameElement;
    } catch (e) {
      frame = null;
    }
    if (!frame) {
      complete = false;
      break;
    }
    const outer = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
    x += outer.left + frame.clientLeft + (parseFloat(style.paddingLeft) || 0);
    y += outer.top + frame.clientTop + (parseFloat(style.paddingTop) || 0);
    w = w.parent;
  }
  x += w.scrollX;
  y += w.scrollY;
  return { x: x, y: y, width: box.width, height: box.height, complete: complete };
})
