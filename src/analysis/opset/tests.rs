use super::check::edit_distance;
use super::table::{opset_position, OpTable, OpsetPos, INFERENCE_YAML, OPS_YAML};

#[test]
fn embedded_tables_parse() {
    let t = OpTable::parse(OPS_YAML, INFERENCE_YAML).expect("tables parse");
    assert!(t.knows("slice_update") && t.knows("write_state") && t.knows("conv"));
    assert_eq!(t.first_opset("slice_update"), Some("ios18"));
    assert!(t.version("slice_update", 2).is_none());
    assert!(t.version("slice_update", 3).is_some());
}

#[test]
fn opsets_in_both_spellings() {
    assert_eq!(opset_position("ios17"), OpsetPos::Known(2));
    assert_eq!(opset_position("CoreML8"), OpsetPos::Known(3));
    assert_eq!(opset_position("CoreML9"), OpsetPos::NotDescribed);
    assert_eq!(opset_position("ios26"), OpsetPos::NotDescribed);
}

#[test]
fn edit_distances() {
    assert_eq!(edit_distance("updat", "update"), 1);
    assert_eq!(edit_distance("relu6x", "relu"), 2);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}
