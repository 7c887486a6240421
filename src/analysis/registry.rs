//! Every model-level entity kind and its properties, as the producers register them. The rule
//! loader checks `kind:` and property names against this list; docs/rule-language.md lists it
//! (a test keeps the two equal).

use super::entity::{Entity, EntityKind};

/// A model's model-level entities, which entity rules (`kind:`) select.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelEntities {
    /// Every entity of every registered kind.
    pub entities: Vec<Entity>,
}

/// Every entity kind of every producer.
pub fn entity_kinds() -> impl Iterator<Item = &'static EntityKind> + Clone {
    super::bundle::ENTITY_KINDS
        .iter()
        .chain(super::opset::ENTITY_KINDS)
        .chain(super::os_requirement::ENTITY_KINDS)
        .chain(super::description::ENTITY_KINDS)
        .chain(super::description_features::ENTITY_KINDS)
        .chain(super::state_writes::ENTITY_KINDS)
        .chain(super::blobs::ENTITY_KINDS)
        .chain(super::inline_weights::ENTITY_KINDS)
        .chain(super::pipeline_nms::ENTITY_KINDS)
        .chain(super::coreai::ENTITY_KINDS)
        .chain(super::placement_regression::ENTITY_KINDS)
}

/// The registered kind called `name`.
pub fn entity_kind(name: &str) -> Option<&'static EntityKind> {
    entity_kinds().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn kinds_and_their_properties_are_unique() {
        let mut kinds = BTreeSet::new();
        for k in entity_kinds() {
            assert!(kinds.insert(k.name), "{} registered twice", k.name);
            let mut props = BTreeSet::new();
            for p in k.properties {
                assert!(
                    props.insert(p.name),
                    "{}.{} registered twice",
                    k.name,
                    p.name
                );
                assert!(
                    p.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                    "{}.{} is not kebab-case",
                    k.name,
                    p.name
                );
            }
        }
        for kind in [
            "bundle-item",
            "weight",
            "weight-file",
            "coreai-asset",
            "coreai-file",
        ] {
            assert!(entity_kind(kind).is_some(), "{kind}");
        }
    }
}
