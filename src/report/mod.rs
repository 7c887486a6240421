//! Renderers: human (miette), concise, JSON, SARIF, GitHub annotations. Each is a pure function of a
//! [`CheckRun`](crate::check::CheckRun) whose findings are already sorted.

pub mod concise;
pub mod explain;
pub mod github;
pub mod human;
pub mod json;
pub mod placement;
pub mod progress;
pub mod sarif;
pub mod source;
pub mod statistics;
