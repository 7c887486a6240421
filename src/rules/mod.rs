//! Declarative YAML rules: schema, loader (built-ins embedded + user folders), matcher, rule tests.
//!
//! A rule is data (`rules/<id>.yaml`): metadata, a `match:` rule object built from primitives
//! implemented here once, a message / help template, an optional fix primitive and test snippets.
//! No rule has Rust code of its own.

pub mod applies;
pub(crate) mod bindings;
pub(crate) mod compare;
pub(crate) mod compile;
pub(crate) mod compile_error;
pub(crate) mod context;
pub(crate) mod cost;
pub mod demand;
pub mod engine;
pub(crate) mod entity_rule;
pub(crate) mod fixes;
pub(crate) mod guard;
pub mod info;
pub mod loader;
pub(crate) mod matcher;
pub mod parse_cache;
pub(crate) mod region;
pub mod schema;
pub mod target;
pub(crate) mod template;
pub mod testing;
pub mod units;
pub(crate) mod vars;

pub use demand::RuleDemand;
pub use engine::{
    match_function, match_model, match_model_for, match_model_with, needs_function_analysis,
};
pub use info::RuleInfo;
pub use loader::{load_rule_text, LoadError, Rule, RuleFileError, RuleFix, RuleSet, RuleSource};
pub use parse_cache::CacheDir;
pub use target::{DeployTarget, TargetError};
pub use testing::{
    run_rule_cases_with, run_rule_tests, run_rule_tests_with, CaseKind, CaseResult, CaseRun,
    CaseStatus, TestReport,
};
pub use units::{ComputeUnits, ComputeUnitsError, Unit};

#[cfg(test)]
mod tests;
