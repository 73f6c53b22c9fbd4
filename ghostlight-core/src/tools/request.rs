//! The typed request: one variant per tool, each holding exactly one decoded branch, and its
//! classification ([`classify`]: what it needs from authority).

use crate::authority::Restrictions;
use crate::authority::{Constraint, Destination, Requirement, Site};
use crate::capability::CapabilitySet;
use crate::decode::{DecodeError, ObjectReader};
use crate::handles::Handle;
use crate::names::ToolName;
use crate::tools::{self, Tool};

/// A decoded top-level call: the request and the invocation's restrictions.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The typed request.
    pub request: Request,
    /// `restrict_hosts` / `restrict_capabilities`, which can only narrow authority.
    pub restrictions: Restrictions,
}

macro_rules! declare_requests {
    ($($variant:ident => $wire:literal, $module:ident, $request:ident;)+) => {
        /// A typed request for one of the 24 tools.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Request {
            $(#[doc = concat!("`", $wire, "`")] $variant(tools::$module::$request)),+
        }

        impl Request {
            /// The tool this request is for.
            pub fn tool(&self) -> ToolName {
                match self { $(Request::$variant(_) => ToolName::$variant),+ }
            }

            /// The capabilities this request requires, exactly as the specification's table
            /// states (composite wrappers require none: their steps are classified one by one).
            pub fn capabilities(&self) -> CapabilitySet {
                match self { $(Request::$variant(r) => r.capabilities()),+ }
            }

            /// The tab the request names explicitly, if any.
            pub fn tab(&self) -> Option<&Handle> {
                match self { $(Request::$variant(r) => r.tab()),+ }
            }

            /// Whether the request acts on a tab's page (see [`Tool::tab_bound`]).
            pub(crate) fn tab_bound(&self) -> bool {
                match self { $(Request::$variant(r) => r.tab_bound()),+ }
            }

            /// Constraints beyond capabilities and hosts (see [`Tool::constraints`]).
            pub(crate) fn constraints(&self) -> &'static [Constraint] {
                match self { $(Request::$variant(r) => r.constraints()),+ }
            }

            /// The URL the request takes a tab to (see [`Tool::destination_url`]).
            pub(crate) fn destination_url(&self) -> Option<&url::Url> {
                match self { $(Request::$variant(r) => r.destination_url()),+ }
            }

            /// Whether acting this way may make the page open a tab (see [`Tool::MAY_OPEN_TABS`]).
            pub(crate) fn may_open_tabs(&self) -> bool {
                match self { $(Request::$variant(_) => <tools::$module::$request as Tool>::MAY_OPEN_TABS),+ }
            }

            /// Decode `tool`'s own fields from `reader`.
            pub(crate) fn decode(tool: ToolName, reader: &mut ObjectReader<'_>) -> Result<Request, DecodeError> {
                match tool {
                    $(ToolName::$variant => <tools::$module::$request as Tool>::decode(reader).map(Request::$variant)),+
                }
            }
        }
    };
}
crate::names::tool_table!(declare_requests);

/// Classify a typed request (see the module documentation for the rules).
pub fn classify(request: &Request) -> Requirement {
    let tool = request.tool();
    let capabilities = request.capabilities();
    let destination = request.destination_url().map(|url| match Site::from_url(url) {
        Some(site) => Destination::Site(site),
        None => Destination::NotWeb,
    });
    let tab_bound = request.tab_bound();
    let constraints = request.constraints();
    Requirement::from_parts(tool, capabilities, destination, tab_bound, constraints)
}

impl Request {
    /// What this request needs from authority (see [`classify`]).
    pub fn requirement(&self) -> Requirement {
        classify(self)
    }
}
