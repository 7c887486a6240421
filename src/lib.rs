#![warn(missing_docs)]
//! coreml-lint: static analysis of Core ML models.
//!
//! Data flows one way: [`discover`] → [`read`] → [`ir`] → [`analysis`] → [`rules`] →
//! [`report`] or [`fix`]; [`check::check`] runs the whole pipeline (ARCHITECTURE.md).
//!
//! Every public item is documented: `#![warn(missing_docs)]` applies to the whole crate.

pub mod allocator;
pub mod analysis;
pub mod baseline;
pub mod check;
pub mod config;
pub mod discover;
pub mod finding;
pub mod fix;
pub mod ir;
pub mod json_schema;
pub mod limits;
pub mod lint;
pub(crate) mod mil_number;
pub mod os_level;
pub mod read;
pub mod report;
pub mod rules;
pub mod suggest;
pub mod unsafe_chars;
pub(crate) mod yaml;
