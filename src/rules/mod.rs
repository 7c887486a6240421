//! Declarative YAML rules: schema, loader (built-ins embedded + user folders), matcher, rule tests.
pub mod yaml;
