// Ghostlight capture: the CSS size of the whole scrollable document.
//
// One function expression, run through WebDriver "Execute Script" in the top-level document
// as `return (fn)()`. Answers {width, height}: the larger of the root element's and the
// body's scroll size, and never less than the viewport. Reads only geometry.
(function glCapturePageSize() {
  const root = document.documentElement;
  const body = document.body;
  const width = Math.max(root ? root.scrollWidth : 0, body ? body.scrollWidth : 0, window.innerWidth);
  const height = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0, window.innerHeight);
  return { width: width, height: height };
})
