use std::path::Path;

use prost::Message;

use super::fixtures::*;
use super::*;

#[test]
fn model_round_trips_through_prost() {
    let m = sample_model();
    let bytes = m.encode_to_vec();
    let back = decode_model(&bytes, Path::new("m.mlmodel")).unwrap();
    assert_eq!(back, m);
}

#[test]
fn unknown_enum_numbers_are_kept() {
    let tt = TensorType {
        data_type: 99,
        ..TensorType::default()
    };
    let back = TensorType::decode(tt.encode_to_vec().as_slice()).unwrap();
    assert_eq!(back.data_type, 99);
}

#[test]
fn truncated_and_garbage_models_fail_cleanly() {
    let bytes = sample_model().encode_to_vec();
    let mut failures = 0;
    for len in 0..bytes.len() {
        if decode_model(&bytes[..len], Path::new("t.mlmodel")).is_err() {
            failures += 1;
        }
    }
    assert!(failures > 0, "some truncations must be detected");
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..200 {
        let garbage: Vec<u8> = (0..64)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        if let Err(e) = decode_model(&garbage, Path::new("g.mlmodel")) {
            assert!(e.to_string().contains("g.mlmodel"));
        }
    }
}
