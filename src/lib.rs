//! coreml-lint: static analysis of Core ML models.
//!
//! Data flows one way: [`discover`] → [`read`] → [`ir`] → [`analysis`] → [`rules`] →
//! [`report`] or [`fix`].

pub mod analysis;
pub mod check;
pub mod config;
pub mod discover;
pub mod finding;
pub mod fix;
pub mod ir;
pub mod json_schema;
pub mod limits;
pub mod lint;
pub mod mil_number;
pub mod read;
pub mod report;
pub mod rules;
