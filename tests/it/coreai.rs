//! Core AI assets (`.aimodel`) end to end through the CLI: discovery, dump, JSON findings, and
//! damaged bytecode as an input error.

use crate::common;

use assert_cmd::Command;

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").unwrap()
}

#[test]
fn dump_prints_the_inventory() {
    let asset = common::corpus().join("coreai/floor.aimodel");
    let out = bin().arg("dump").arg(&asset).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("bytecode: version 6, producer MLIR22.0.0git"),
        "{text}"
    );
    assert!(text.contains("aicode.primitive.floor_divide_v1"), "{text}");
    assert!(text.contains("producer: coreai-core 1.0.0b3"), "{text}");
}

#[test]
fn a_file_inside_the_bundle_checks_the_bundle_once() {
    let asset = common::corpus().join("coreai/argmax.aimodel");
    let out = bin()
        .args(["check", "--output-format", "json"])
        .arg(asset.join("main.mlirb"))
        .arg(&asset)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    let findings: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let argmax = findings
        .iter()
        .filter(|f| f["rule"] == "coreai-argmax")
        .count();
    assert_eq!(argmax, 1, "{text}");
    assert_eq!(findings[0]["path"], asset.display().to_string(), "{text}");
}

#[test]
fn damaged_bytecode_is_an_input_error_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let asset = dir.path().join("bad.aimodel");
    common::copy_tree(&common::corpus().join("coreai/clean.aimodel"), &asset);
    let program = asset.join("main.mlirb");
    let mut bytes = std::fs::read(&program).unwrap();
    bytes.truncate(40);
    std::fs::write(&program, &bytes).unwrap();
    let out = bin().arg("check").arg(&asset).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("main.mlirb") && err.contains("at byte"),
        "{err}"
    );
}

/// Every Core AI asset needs iOS 27 / macOS 27: an older deployment target is `requires-newer-os`.
#[test]
fn a_core_ai_asset_needs_os_27() {
    // An fp16 program no other rule reports.
    let asset = common::corpus().join("coreai/programs/split.aimodel");
    let rules = |target: &str| {
        let out = bin()
            .args([
                "check",
                "--isolated",
                "--output-format",
                "json",
                "--target",
                target,
            ])
            .arg(&asset)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<(String, String)> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        (out.status.code(), found)
    };
    let (code, found) = rules("ios26");
    assert_eq!(code, Some(1), "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "requires-newer-os");
    assert!(found[0].1.contains("iOS 27 / macOS 27"), "{found:?}");
    assert!(found[0].1.contains("Core AI"), "{found:?}");
    assert_eq!(rules("ios27"), (Some(0), vec![]));
    assert_eq!(rules("macos27").1, vec![]);
}

/// `NDArray (Float16, 1 × 1 × 16)` (coreai-core's summary) → `tensor<fp16, [1, 1, 16]>` (dump).
fn summary_type(text: &str) -> String {
    let inner = text
        .strip_prefix("NDArray (")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected summary type {text}"));
    let (dtype, dims) = inner.split_once(", ").unwrap_or((inner, ""));
    let dtype = match dtype {
        "Float16" => "fp16",
        "Float32" => "fp32",
        "Int32" => "int32",
        "UInt32" => "uint32",
        other => panic!("unexpected summary dtype {other}"),
    };
    let dims: Vec<&str> = dims.split(" × ").filter(|d| !d.is_empty()).collect();
    format!("tensor<{dtype}, [{}]>", dims.join(", "))
}

/// On every coreai-torch-made program, `dump` names each function with its stored `aicode` op count
/// (what coreai-core's `operation_distribution` sums), and
/// each input, state and output with coreai-core's shape (`X.summary.json`, written by
/// `corpus/coreai/programs/generate.py` from `AIModelAsset.summary()` and the stored module).
#[test]
fn dump_gives_what_coreai_core_reads() {
    let dir = common::corpus().join("coreai/programs");
    let mut facts = 0;
    for name in [
        "decoder",
        "kv2048",
        "logits1000",
        "split",
        "split-zero",
        "fp32-island",
        "metal-kernel",
        "kv2048-ios",
        "kv1024-ios",
    ] {
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.summary.json"))).unwrap(),
        )
        .unwrap();
        let out = bin()
            .arg("dump")
            .arg(dir.join(format!("{name}.aimodel")))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for f in summary["functions"].as_array().unwrap() {
            let fname = f["name"].as_str().unwrap();
            let ops = f["ops"].as_u64().unwrap();
            let section = text
                .split("\nfunction ")
                .find(|s| s.split([' ', ':']).next() == Some(fname))
                .unwrap_or_else(|| panic!("{name}: no function {fname} in\n{text}"));
            assert!(
                section.contains(&format!("\n  aicode ops: {ops} stored at any depth")),
                "{name}/{fname}: coreai-core's stored module has {ops} ops:\n{section}"
            );
            facts += 2;
            for (key, heading) in [
                ("inputs", "  inputs:"),
                ("states", "  states:"),
                ("outputs", "  outputs:"),
            ] {
                let Some(list) = f[key].as_array() else {
                    continue;
                };
                let block: Vec<&str> = section
                    .lines()
                    .skip_while(|l| *l != heading)
                    .skip(1)
                    .take_while(|l| l.starts_with("    "))
                    .map(str::trim)
                    .collect();
                for v in list {
                    let (vname, ty) = (v[0].as_str().unwrap(), v[1].as_str().unwrap());
                    let ty = summary_type(ty);
                    let want = if key == "states" {
                        format!("{vname}: state<{ty}>")
                    } else {
                        format!("{vname}: {ty}")
                    };
                    assert!(
                        block.contains(&want.as_str()),
                        "{name}/{fname}: `{want}` not among the {key} {block:?}"
                    );
                    facts += 1;
                }
            }
        }
    }
    // 14 functions with a name and an op count each; 32 + 2 × 5 + 3 inputs, states and outputs of
    // the 10 entry points (coreai-core's summary lists none for the private composite graphs).
    assert_eq!(facts, 73);
}

/// An `invoke_v1` of a composite graph is lowered as the composite's op, with the composite's
/// parameter names, and names the graph it calls.
#[test]
fn composite_calls_are_lowered_as_their_op() {
    let asset = common::corpus().join("coreai/programs/decoder.aimodel");
    let out = bin().arg("dump").arg(&asset).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let calls: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("aicode.dataflow.invoke_v1 @sdpa_"))
        .collect();
    assert_eq!(calls.len(), 2, "{text}");
    for call in calls {
        assert!(
            call.contains("= scaled_dot_product_attention(query = ")
                && call.contains(", attn_mask = mask)"),
            "{call}"
        );
    }
}

/// The top-level ops of each graph of a program as coreai-core prints it (`X.program.txt`): the
/// lines at the graph body's indentation that define or are an op, `coreai.output` excepted, with
/// how many of them are constants.
fn printed_op_counts(program: &str) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for line in program.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("coreai.graph ") {
            let name = rest.split('@').nth(1).unwrap().split('(').next().unwrap();
            out.push((name.to_string(), 0, 0));
            continue;
        }
        let body = line.strip_prefix("    ").unwrap_or("");
        let is_op = body.starts_with('%') || body.starts_with("coreai");
        if !is_op {
            continue;
        }
        let graph = out.last_mut().expect("an op outside a graph");
        graph.1 += 1;
        if body.contains(" = coreai.constant ") {
            graph.2 += 1;
        }
    }
    out
}

/// For every program of the corpus, `dump`'s op count of each function is the number of top-level
/// ops in coreai-core's printed program, with one op line each, and the count `--placement` uses
/// (the ops that are not constants) is the one `dump` states.
#[test]
fn dump_counts_the_ops_of_coreai_cores_printed_program() {
    let dir = common::corpus().join("coreai/programs");
    let mut programs: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".program.txt"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 12, "{programs:?}");
    let mut functions = 0;
    for printed in &programs {
        let stem = printed
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".program.txt", "");
        let asset = dir.join(format!("{stem}.aimodel"));
        let counts = printed_op_counts(&std::fs::read_to_string(printed).unwrap());
        assert!(
            !counts.is_empty(),
            "{stem}: no graph in the printed program"
        );
        let out = bin().arg("dump").arg(&asset).output().unwrap();
        assert!(out.status.success(), "{stem}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let out = bin()
            .args([
                "check",
                "--isolated",
                "--placement",
                "--output-format",
                "json",
            ])
            .arg(&asset)
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (fname, ops, constants) in counts {
            let section = text
                .split("\nfunction ")
                .find(|s| s.split([' ', ':']).next() == Some(fname.as_str()))
                .unwrap_or_else(|| panic!("{stem}: no function {fname} in\n{text}"));
            // The output is one of the printed ops; `dump` lists it as the outputs.
            let not_constants = ops - constants - 1;
            let want = format!(
                "\n  ops: {ops} top-level, as coreai-core's printed program has them (`coreai.output` \
                 counted, region bodies not; one line each below, the output as the outputs), \
                 {not_constants} of them neither constants nor the output"
            );
            assert!(
                section.contains(&want),
                "{stem}/{fname}: want `{want}` in\n{section}"
            );
            let op_lines = section
                .lines()
                .filter(|l| l.contains("  // aicode."))
                .count();
            assert_eq!(op_lines + 1, ops, "{stem}/{fname}: op lines\n{section}");
            let placed = json["placement"]["functions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["function"] == fname.as_str())
                .unwrap_or_else(|| panic!("{stem}/{fname}: not placed: {json}"));
            assert_eq!(placed["ops"], not_constants, "{stem}/{fname}: {placed}");
            functions += 1;
        }
    }
    // 19 graphs over the 12 programs (2 entry points and 2 composites in `decoder`, 2 entry
    // points in `conv`).
    assert_eq!(functions, 19);
}

/// The programs of the corpus with coreai-core's printed form of each: (asset, printed text, dump).
fn programs_with_dumps() -> Vec<(String, String, String)> {
    let dir = common::corpus().join("coreai/programs");
    let mut out = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            name.strip_suffix(".program.txt").map(str::to_string)
        })
        .collect();
    names.sort();
    for name in names {
        let printed = std::fs::read_to_string(dir.join(format!("{name}.program.txt"))).unwrap();
        let out_dump = bin()
            .arg("dump")
            .arg(dir.join(format!("{name}.aimodel")))
            .output()
            .unwrap();
        assert!(out_dump.status.success(), "{name}: {out_dump:?}");
        out.push((name, printed, String::from_utf8(out_dump.stdout).unwrap()));
    }
    out
}

/// The top-level op lines of each graph, in order: coreai-core's printed ones (without
/// `coreai.output`) and `dump`'s.
fn op_lines<'a>(printed: &'a str, dump: &'a str) -> Vec<(String, Vec<&'a str>, Vec<&'a str>)> {
    let mut graphs: Vec<(String, Vec<&str>, Vec<&str>)> = Vec::new();
    for line in printed.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("coreai.graph ") {
            let name = rest.split('@').nth(1).unwrap().split('(').next().unwrap();
            graphs.push((name.to_string(), Vec::new(), Vec::new()));
            continue;
        }
        let body = line.strip_prefix("    ").unwrap_or("");
        if (body.starts_with('%') || body.starts_with("coreai"))
            && !body.starts_with("coreai.output ")
        {
            graphs.last_mut().unwrap().1.push(body);
        }
    }
    for (name, _, dumped) in &mut graphs {
        let section = dump
            .split("\nfunction ")
            .find(|s| s.split([' ', ':']).next() == Some(name.as_str()))
            .unwrap();
        *dumped = section
            .lines()
            .filter(|l| l.contains("  // aicode."))
            .collect();
    }
    graphs
}

/// `dump` says which asset version the program has and which OS it needs, which resource each
/// weight constant reads (the key coreai-core prints for the same op), each composite's attributes
/// as coreai-core prints them, and names the operands of every op with named parameters.
#[test]
fn dump_shows_versions_resources_composite_attributes_and_parameter_names() {
    let programs = programs_with_dumps();
    let (mut resources, mut composites) = (0, 0);
    for (name, printed, dump) in &programs {
        assert!(
            dump.lines().any(|l| l.starts_with("asset version: 202")
                && l.contains("needs iOS 27 / macOS 27: compatibility version 27.0")),
            "{name}:\n{dump}"
        );
        for (graph, printed_ops, dumped_ops) in op_lines(printed, dump) {
            assert_eq!(printed_ops.len(), dumped_ops.len(), "{name}/{graph}");
            for (p, d) in printed_ops.iter().zip(&dumped_ops) {
                if let Some(key) = p.split("dense_resource<").nth(1) {
                    let key = key.split('>').next().unwrap();
                    assert!(
                        d.contains(&format!("= const(val = dense_resource<{key}>)")),
                        "{name}/{graph}: coreai-core prints `{p}`, dump `{d}`"
                    );
                    resources += 1;
                }
                assert!(
                    !d.contains("operand0 ="),
                    "{name}/{graph}: an op with named parameters: {d}"
                );
            }
        }
        // `op_attrs = {is_causal = false, version = 1 : si64, …}` in the composite declaration.
        for decl in printed.split("op_attrs = {").skip(1) {
            let attrs = decl.split('}').next().unwrap().replace(" : si64", "");
            let graph = printed[..printed.find(decl).unwrap()]
                .rsplit("coreai.graph private noinline @")
                .next()
                .unwrap()
                .split('(')
                .next()
                .unwrap();
            let header = format!(
                "function {graph} (private) (composite scaled_dot_product_attention: {attrs}):"
            );
            assert!(dump.contains(&header), "{name}: no `{header}` in\n{dump}");
            let call = format!("@{graph} {{{attrs}}}");
            assert!(dump.contains(&call), "{name}: no call `{call}` in\n{dump}");
            assert!(attrs.contains("is_causal = false"), "{attrs}");
            composites += 1;
        }
    }
    // Weight resources: 6 in `decoder` (two entry points), 3 in `kv2048` and `logits1000`, 2 in
    // `decoder-fp32`, 1 in each `kv*-ios` and in `conv`; SDPA composites: 2 + 1 + 1 + 1.
    assert_eq!((resources, composites), (17, 5));
}

/// `--placement` on Core AI assets says what its estimate is (Core ML's op table) and that no Core
/// AI API can confirm it, naming no Core ML API; a run that also checks a Core ML package still
/// points that package to MLComputePlan.
#[test]
fn placement_on_a_core_ai_asset_names_no_core_ml_api() {
    let assets = [
        common::corpus().join("coreai/programs/decoder.aimodel"),
        common::corpus().join("coreai/programs/split.aimodel"),
    ];
    for format in ["human", "json"] {
        let out = bin()
            .args([
                "check",
                "--isolated",
                "--placement",
                "--output-format",
                format,
            ])
            .args(&assets)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("no API that reports where ops run"),
            "{format}: {text}"
        );
        assert!(text.contains("Core ML's op table"), "{format}: {text}");
        assert!(!text.contains("MLComputePlan"), "{format}: {text}");
    }
    let package = common::corpus()
        .join("packages")
        .join("torch-help-fp32-lstm-ios17-clean.mlpackage");
    let out = bin()
        .args(["check", "--isolated", "--placement"])
        .arg(&assets[1])
        .arg(&package)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text
        .lines()
        .find(|l| l.starts_with("Likely placement"))
        .unwrap();
    assert!(
        header.contains("MLComputePlan") && header.contains("for a Core AI asset"),
        "{header}"
    );
}

/// The operands of a printed op `%7 = coreai.conv2d %6, %3, %2, %2, %1 : (…)`, when they are a plain
/// list of values (not `scatter_nd … with … at`, `invoke @f(…)`), or a Metal kernel's clauses
/// `kernel_args(%3, %4), threads_per_grid %0, threads_per_thread_group %1, result_shapes(%2, %2)`
/// in their order.
fn printed_operands(op: &str) -> Option<Vec<&str>> {
    let rest = op.split_once(" = ").map_or(op, |(_, r)| r);
    let (_, args) = rest.split_once(' ')?;
    let args = args
        .split([':', '{'])
        .next()?
        .split(" mode = ")
        .next()?
        .trim();
    let mut args: Vec<&str> = args.split(", ").collect();
    if rest.starts_with("coreai.metal4_kernel ") {
        args = args
            .iter()
            .map(|a| a.rsplit(['(', ' ']).next().unwrap().trim_end_matches(')'))
            .collect();
    }
    args.iter()
        .all(|a| a.starts_with('%') && !a.contains(' '))
        .then_some(args)
}

/// A printed op's operand types, split at the top level (a Metal kernel's operand type has commas
/// inside its `<…>`).
fn printed_operand_types(op: &str) -> Option<Vec<&str>> {
    let signature = op.split_once(" : (")?.1;
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, c) in signature.char_indices() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(signature[start..i].trim());
                start = i + 1;
            }
            ')' if depth == 0 => {
                out.push(signature[start..i].trim());
                return Some(out);
            }
            _ => {}
        }
    }
    None
}
/// The result names of a printed op (`%22:3` gives `%22#0`, `%22#1`, `%22#2`) or a dumped one.
fn result_names(op: &str) -> Vec<String> {
    let Some((lhs, _)) = op.split_once(" = ") else {
        return Vec::new();
    };
    if let Some((name, n)) = lhs.split_once(':') {
        let n: usize = n.parse().unwrap();
        return (0..n).map(|i| format!("{name}#{i}")).collect();
    }
    lhs.split(", ").map(str::to_string).collect()
}

/// The values a dumped op reads, each with its parameter, in its parameters' order (a tuple
/// parameter's values in order, each under its name); literal values left out.
fn dumped_params(op: &str) -> Vec<(String, String)> {
    let call = op.split_once(" = ").map_or(op, |(_, r)| r);
    let inner = call.split_once('(').unwrap().1;
    let inner = inner.rsplit_once(") : ").map_or(inner, |(a, _)| a);
    let mut out = Vec::new();
    let parts: Vec<&str> = inner.split(" = ").collect();
    for (i, part) in parts.iter().enumerate().skip(1) {
        // Each part but the last ends with the next parameter's name.
        let value = match i + 1 < parts.len() {
            true => part.rsplit_once(", ").map_or(*part, |(v, _)| v),
            false => part,
        };
        if value.starts_with('[') || value.starts_with("dense_resource") {
            continue;
        }
        let param = parts[i - 1].rsplit([' ', '(']).next().unwrap();
        let value = value.trim_start_matches('(').trim_end_matches(')');
        out.extend(
            value
                .split(", ")
                .map(|v| (param.to_string(), v.to_string())),
        );
    }
    out
}

/// The values a dumped op reads, in its parameters' order.
fn dumped_operands(op: &str) -> Vec<String> {
    dumped_params(op).into_iter().map(|(_, v)| v).collect()
}

/// On every program of the corpus, each op `dump` prints reads the values coreai-core's printed op
/// reads, in the same order: the parameter names follow coreai's operand order (`conv2d`, `pad`,
/// `expand_dims`, `shrink_dims`, `broadcast_in_dims`, …).
#[test]
fn dump_reads_the_operands_coreai_core_prints_in_its_order() {
    let mut compared: std::collections::BTreeSet<String> = Default::default();
    let mut typed = 0;
    for (name, printed, dump) in programs_with_dumps() {
        for (graph, printed_ops, dumped_ops) in op_lines(&printed, &dump) {
            let header = printed
                .lines()
                .find(|l| l.contains(&format!("@{graph}(")))
                .unwrap();
            let mut names: std::collections::HashMap<String, String> = Default::default();
            for arg in header.split("%arg").skip(1) {
                let index = arg.split(':').next().unwrap();
                let input = arg.split("coreai.name = \"").nth(1).unwrap();
                let input = input.split('"').next().unwrap();
                names.insert(format!("%arg{index}"), input.to_string());
            }
            for (p, d) in printed_ops.iter().zip(&dumped_ops) {
                let d = d.trim_start().split("  // ").next().unwrap();
                for (pr, dr) in result_names(p).into_iter().zip(result_names(d)) {
                    names.insert(pr, dr);
                }
                let Some(operands) = printed_operands(p) else {
                    continue;
                };
                let want: Vec<String> = operands.iter().map(|o| names[*o].clone()).collect();
                assert_eq!(
                    dumped_operands(d),
                    want,
                    "{name}/{graph}: `{p}` against `{d}`"
                );
                let op = p
                    .split("coreai.")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap();
                compared.insert(op.to_string());
                // Each named parameter has the type its name says, in the printed operand types.
                let Some(types) = printed_operand_types(p) else {
                    continue; // `cast %x : tensor<…> to tensor<…>`: one operand
                };
                let params = dumped_params(d);
                for ((param, _), ty) in params.iter().zip(&types) {
                    let expected = match (op, param.as_str()) {
                        ("conv2d", "weight") => "tensor<8x4x3x3xf16>",
                        ("conv2d", "strides" | "dilations") => "tensor<2xui32>",
                        ("conv2d", "groups") => "tensor<ui32>",
                        ("pad", "pad") => "tensor<8xui32>",
                        ("pad", "constant_val") => "tensor<f16>",
                        ("broadcast_in_dims", "sizes") => "xui32>",
                        ("broadcast_in_dims" | "expand_dims" | "shrink_dims", "axes") => "xsi32>",
                        ("metal4_kernel", "kernel_args") => "#coreaix.hw_constraints<MTLBuffer, \
                                                             alignments: [1x1x1], interleave: [1x1]>>",
                        ("metal4_kernel", "threads_per_grid" | "threads_per_thread_group") => {
                            "tensor<3xui32>"
                        }
                        ("metal4_kernel", "result_shapes") => "tensor<2xui32>",
                        _ => continue,
                    };
                    assert!(
                        ty.ends_with(expected),
                        "{name}/{graph}: `{param}` is {ty}: {p}"
                    );
                    typed += 1;
                }
            }
        }
    }
    for op in [
        "conv2d",
        "pad",
        "expand_dims",
        "shrink_dims",
        "broadcast_in_dims",
        "split",
        "concat",
        "write_handle",
        "metal4_kernel",
    ] {
        assert!(compared.contains(op), "no `{op}` compared: {compared:?}");
    }
    // conv2d: weight, strides, dilations, groups; pad: pad, constant_val; expand_dims and
    // shrink_dims: axes; the 11 broadcast_in_dims of the corpus: sizes, axes; the Metal kernel's
    // operands (2 kernel_args, the 2 dispatch sizes, 3 result_shapes).
    assert_eq!(typed, 4 + 2 + 2 + 2 * 11 + 2 + 2 + 3, "{compared:?}");
}

/// SARIF on Core AI assets: each result is at the bundle's `main.mlirb`, names its function and op
/// through logical locations, and gives the line of its op, state or output in `coreml-lint dump`'s
/// text (`dumpLine` / `dumpColumn`, as the JSON's `dump_line`), as for a package.
#[test]
fn sarif_on_core_ai_assets_gives_the_dump_line_of_each_op() {
    let dir = common::corpus().join("coreai/programs");
    let mut at_ops = 0;
    for asset in ["kv2048-ios", "logits1000", "metal-kernel", "split-zero"] {
        let path = dir.join(format!("{asset}.aimodel"));
        let out = bin()
            .args(["check", "--isolated", "--output-format", "sarif"])
            .arg(&path)
            .output()
            .unwrap();
        let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let out = bin()
            .args(["check", "--isolated", "--output-format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let dump =
            String::from_utf8(bin().arg("dump").arg(&path).output().unwrap().stdout).unwrap();
        let dump: Vec<&str> = dump.lines().collect();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let diagnostics = json["diagnostics"].as_array().unwrap();
        assert!(!results.is_empty(), "{asset}: no result");
        assert_eq!(results.len(), diagnostics.len(), "{asset}");
        for (r, d) in results.iter().zip(diagnostics) {
            let location = &r["locations"][0];
            let uri = location["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap();
            assert!(
                uri.ends_with(&format!("{asset}.aimodel/main.mlirb")),
                "{uri}"
            );
            let line = r["properties"]["dumpLine"].as_u64().unwrap() as usize;
            let column = r["properties"]["dumpColumn"].as_u64().unwrap() as usize;
            assert_eq!(
                (line, column),
                (
                    d["dump_line"].as_u64().unwrap() as usize,
                    d["dump_column"].as_u64().unwrap() as usize
                )
            );
            let named = d["op"].as_str().or(d["state"].as_str()).unwrap();
            let text = dump[line - 1];
            assert!(
                text[column - 1..].starts_with(named),
                "{asset}: `{named}` at {line}:{column}: {text}"
            );
            let logical = location["logicalLocations"][0]["fullyQualifiedName"]
                .as_str()
                .unwrap();
            assert!(logical.ends_with(named) || d["op"].is_null(), "{logical}");
            at_ops += usize::from(!d["op"].is_null());
        }
    }
    // The logits output, the Metal kernel, the zero-sized split (the KV states are inputs).
    assert!(at_ops >= 3, "{at_ops}");
}
