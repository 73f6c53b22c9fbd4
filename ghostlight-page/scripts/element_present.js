// Ghostlight element presence: one function expression, run through WebDriver "Execute Script"
// as `return (FN)(arguments[0]);` in the element's own frame. Reads only.
//
// Answers whether `el` is attached to its document and shown (glVisible of dom.js,
// prepended).
(function glElementPresent(el) {
  'use strict';
  return !!el && el.isConnected && glVisible(el);
})
