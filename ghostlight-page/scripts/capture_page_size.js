// Ghostlight capture: the CSS size of the whole scrollable document.
//
// One function expression, run through WebDriver "Execute Script" in the top-level document
// as `return (fn)()`. Answers {width, height}: the scroll size of the document's scrolling
// element (the root element, or the body in quirks mode), which is what a full-page capture
// covers (without the scrollbar). Reads only geometry.
(function glCapturePageSize() {
  const scroller = document.scrollingElement || document.documentElement;
  return { width: scroller.scrollWidth, height: scroller.scrollHeight };
})
