//! Facts computed once per function: constant values, run-time dependence, state write chains.
pub mod blobs;
pub mod facts;
