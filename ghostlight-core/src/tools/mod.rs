//! One module per tool: its declaration, typed request, decoder and classification.

pub(crate) mod click;
pub(crate) mod common;
pub(crate) mod diagnose;
pub(crate) mod dialog;
pub(crate) mod drag;
pub(crate) mod execute;
pub(crate) mod fill_form;
pub(crate) mod find;
pub(crate) mod flow;
pub(crate) mod history;
pub(crate) mod hover;
pub(crate) mod inspect;
pub(crate) mod navigate;
pub(crate) mod policy_explain;
pub(crate) mod press_key;
pub(crate) mod read;
pub(crate) mod record;
pub(crate) mod screenshot;
pub(crate) mod scroll;
pub(crate) mod sequence;
pub(crate) mod tabs;
pub(crate) mod type_text;
pub(crate) mod upload;
pub(crate) mod wait;
pub(crate) mod window;

#[cfg(test)]
pub(crate) mod testing;
