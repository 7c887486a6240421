//! Renderers: human (miette), JSON, SARIF, GitHub annotations.
