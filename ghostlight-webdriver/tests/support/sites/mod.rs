//! The fixture sites, one module per area; each `start()` serves its pages on the loopback
//! page server (`crate::support::server::Site`).
//!
//! | module | served to |
//! | --- | --- |
//! | [`e2e`] | the end-to-end, boundary, landing, remote and fault tests, and the tool benchmark |
//! | [`plain`] | the port, lifecycle, startup, fault and launch tests: titled pages, slow and closing pages |
//! | [`perception`] | the perception tests: roles, names, states, frames, articles |
//! | [`boxes`] | the capture tests: coloured boxes at known positions |
//! | [`evidence`] | the evidence and recording tests: console, network and animated pages |
//! | [`hostile`] | the hostile-page tests: pages that spin, loop dialogs, flood popups and frames |
//! | [`wire`] | the wire tests: hostile pages that send to a denied host in every way a page can |

pub(crate) mod boxes;
pub(crate) mod e2e;
pub(crate) mod evidence;
pub(crate) mod hostile;
pub(crate) mod perception;
pub(crate) mod plain;
pub(crate) mod wire;
