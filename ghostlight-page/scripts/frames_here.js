// Frames of this document, for walks through frame documents (ops/frames.rs `visit_frames`):
// the document's own URL, and every visible iframe or frame element of this document (open
// shadow roots included, frame documents not entered) in document order, as WebDriver element
// references the adapter switches into, whatever their origin. Reads only. Bounded by
// MAX_FRAMES and MAX_NODES.
//
// arguments: [] — answers {url, frames: [element]}
const MAX_FRAMES = 32;
const MAX_NODES = 20000;
const frames = [];
const stack = document.documentElement ? [document.documentElement] : [];
let nodes = 0;
while (stack.length && frames.length < MAX_FRAMES && nodes < MAX_NODES) {
  const node = stack.pop();
  nodes += 1;
  // A subtree outside the accessibility tree (aria-hidden, inert): no frame in it is read.
  if (glAriaHidden(node)) continue;
  const tag = node.localName;
  if ((tag === 'iframe' || tag === 'frame') && glVisible(node)) frames.push(node);
  for (let child = node.lastElementChild; child; child = child.previousElementSibling) stack.push(child);
  if (node.shadowRoot) {
    for (let child = node.shadowRoot.lastElementChild; child; child = child.previousElementSibling) {
      stack.push(child);
    }
  }
}
return { url: glAuthorityUrl(document), frames };
