//! Every protobuf message struct is rendered from the one table (`src/read/proto/table.rs` →
//! `messages.rs`): none is declared by hand anywhere under `src/`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_protobuf_message_is_declared_by_hand() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let generated = src.join("read/proto/messages.rs");
    let renderer = src.join("read/proto/codegen.rs");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut by_hand = Vec::new();
    for file in files.iter().filter(|f| **f != generated && **f != renderer) {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let derive = line.trim_start().starts_with("#[derive(");
            if derive && (line.contains("prost::Message") || line.contains("prost::Oneof")) {
                by_hand.push(format!("{}:{}", file.display(), i + 1));
            }
        }
    }
    assert!(
        by_hand.is_empty(),
        "messages declared by hand: {by_hand:#?}"
    );
    let rendered = std::fs::read_to_string(&generated).unwrap();
    let messages = rendered.matches("::prost::Message)]").count();
    assert!(messages >= 50, "only {messages} messages rendered");
}
