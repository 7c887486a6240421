//! The integration tests, in one binary (as rust-analyzer and ruff do: one link instead of one per
//! file). Each module is one former `tests/<name>.rs`. `tests/alloc_limits.rs` stays a binary of
//! its own: it installs a counting global allocator.

mod common;
#[path = "../fuzz_harness/mod.rs"]
mod fuzz_harness;

mod baseline;
mod blob_realworld;
mod builtin_rules;
mod bundles;
mod catalog4_io;
mod catalog4_ops;
mod cli_check;
mod cli_read;
mod cli_target;
mod cli_units;
mod compiled_pipelines;
mod coreai;
mod coreai_program_rules;
mod corpus_dump;
mod corpus_rules;
mod description_rules;
mod fix_exact;
mod fix_offers;
mod fix_packages;
mod fix_pow;
mod fix_safety;
mod fix_text;
mod fuzz_regressions;
mod help_leads_to_clean;
mod hostile_names;
mod html_report;
mod import_circles;
mod json_schema;
mod layers;
mod limits;
mod linear_ops;
mod model_explorer;
mod mutation;
mod one_per_cause;
mod opset_rules;
mod origin_findings;
mod paths;
mod pipelines;
mod placement_cli;
mod read_corpus_packages;
mod read_hostile;
mod read_packages;
mod read_text;
mod realworld_rules;
mod report_machine;
mod rule_keys;
mod rule_language_docs;
mod rule_reach;
mod rule_reach2;
mod rule_snapshots;
mod wire_table;
