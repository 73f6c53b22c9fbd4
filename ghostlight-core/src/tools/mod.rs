//! One module per tool: its declaration, typed request, decoder and classification.

pub mod click;
pub mod common;
pub mod diagnose;
pub mod dialog;
pub mod drag;
pub mod execute;
pub mod fill_form;
pub mod find;
pub mod flow;
pub mod history;
pub mod hover;
pub mod inspect;
pub mod navigate;
pub mod policy_explain;
pub mod press_key;
pub mod read;
pub mod record;
pub mod screenshot;
pub mod scroll;
pub mod sequence;
pub mod tabs;
pub mod type_text;
pub mod upload;
pub mod wait;
pub mod window;

#[cfg(test)]
pub(crate) mod testing;
