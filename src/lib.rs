#![warn(missing_docs)]
//! coreml-lint: static analysis of Core ML models.
//!
//! Data flows one way: [`discover`] → [`read`] → [`ir`] → [`analysis`] → [`rules`] →
//! [`report`] or [`fix`]; [`check::check`] runs the whole pipeline (ARCHITECTURE.md).
//!
//! Every public item is documented: `#![warn(missing_docs)]` applies to the whole crate.

pub mod analysis;
#[warn(missing_docs)]
pub mod check;
#[warn(missing_docs)]
pub mod config;
#[warn(missing_docs)]
pub mod discover;
#[warn(missing_docs)]
pub mod finding;
#[warn(missing_docs)]
pub mod fix;
pub mod ir;
#[warn(missing_docs)]
pub mod json_schema;
#[warn(missing_docs)]
pub mod limits;
#[warn(missing_docs)]
pub mod lint;
pub(crate) mod mil_number;
pub mod read;
#[warn(missing_docs)]
pub mod report;
pub mod rules;
pub(crate) mod yaml;
