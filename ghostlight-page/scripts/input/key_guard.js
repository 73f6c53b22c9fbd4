// Take the key guard off (see glArmKeyGuard in lib.js) and answer its counts: {withheld,
// seen, left, crossed}, or {missing: true} when this document holds no guard under the nonce
// (the document changed while keys were sent). Runs after lib.js, in the guarded document.
//
// arguments: [nonce]
const [key] = arguments;
return glDisarmKeyGuard(key) || { missing: true };
