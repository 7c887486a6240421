//! Property: every state fix a finding offers is the fix `--fix` applies, it applies, and the fixed
//! model has exactly the advertised state shape and no full-extent write left (an op rewrite, such as
//! `pow-const-base-two`'s, leaves no finding of its rule); a state `--fix`
//! cannot fix offers no fix (and its help says why). Over every corpus model (MIL Builder,
//! converter-made and compiled) and generated text variants: every rank, every write axis, masks,
//! negative indices, computed constants, run-time begins, returned reads, blends and a window
//! computed from a shape.

use crate::common;

use std::collections::BTreeMap;

use coreml_lint::finding::Applicability;
use coreml_lint::fix::{apply_plans, FixMode, PadPlan};
use coreml_lint::ir::Model;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{match_model, RuleSet};

const FULL: &str = "state-full-extent-write";

/// Checks the property on `model`; returns how many plans were applied.
fn check_offers(rules: &RuleSet, model: &Model, label: &str) -> usize {
    let findings = match_model(model, rules, &model_entities(model));
    let mut plans: BTreeMap<String, PadPlan> = BTreeMap::new();
    let mut rewriting_rules: Vec<String> = Vec::new();
    for f in &findings {
        let Some(fix) = &f.fix else {
            if f.rule == FULL {
                let help = f.help.as_deref().unwrap_or_default();
                assert!(
                    help.contains("no automatic fix"),
                    "{label}: a full-extent write without a fix must say why: {help}"
                );
            }
            continue;
        };
        let plan = fix
            .plan
            .as_deref()
            .unwrap_or_else(|| panic!("{label}: {} offers a state fix without a plan", f.rule));
        assert_eq!(
            fix.applicability, plan.applicability,
            "{label}: offered applicability differs from the plan's"
        );
        match &plan.rewrite {
            Some(r) => {
                assert_eq!(f.op.as_deref(), Some(r.op.as_str()), "{label}");
                rewriting_rules.push(f.rule.clone());
            }
            None => assert_eq!(f.state.as_deref(), Some(plan.state.as_str()), "{label}"),
        }
        assert!(!plan.is_noop(), "{label}: a no-op plan was offered");
        plans.insert(plan.key(), plan.clone());
    }
    if plans.is_empty() {
        return 0;
    }
    let plans: Vec<PadPlan> = plans.into_values().collect();
    // Safe plans apply without --unsafe-fixes, exactly as offered; unsafe ones are held back.
    let safe_only = apply_plans(model, &plans, false, FixMode::DiffOnly)
        .unwrap_or_else(|e| panic!("{label}: an offered fix failed: {e}"));
    let (safe, unsafe_): (Vec<PadPlan>, Vec<PadPlan>) = plans
        .iter()
        .cloned()
        .partition(|p| p.applicability == Applicability::Safe);
    assert_eq!(
        safe_only.applied, safe,
        "{label}: applied plans differ from the offers"
    );
    assert_eq!(
        safe_only.held_back, unsafe_,
        "{label}: unsafe plans held back"
    );
    let out = apply_plans(model, &plans, true, FixMode::DiffOnly)
        .unwrap_or_else(|e| panic!("{label}: an offered fix failed: {e}"));
    assert_eq!(
        out.applied, plans,
        "{label}: applied plans differ from the offers"
    );
    let after = out.after.expect("something changed");
    let fixed = snippet_model("fixed.mil", &after)
        .unwrap_or_else(|e| panic!("{label}: the fixed text does not parse: {e}\n{after}"));
    for plan in plans.iter().filter(|p| p.rewrite.is_none()) {
        for f in &fixed.program.functions {
            let Some((_, i)) = f.inputs().find(|(_, i)| i.name == plan.state) else {
                continue;
            };
            let dims = i.ty.tensor().and_then(|t| t.known_dims());
            assert_eq!(
                dims.as_ref(),
                Some(&plan.new_shape),
                "{label}: {}/{} is not the advertised shape",
                f.name,
                plan.state
            );
        }
    }
    let left: Vec<_> = match_model(&fixed, rules, &model_entities(&fixed))
        .into_iter()
        .filter(|f| f.rule == FULL || rewriting_rules.contains(&f.rule))
        .map(|f| f.message)
        .collect();
    assert!(
        left.is_empty(),
        "{label}: still reported after the fix: {left:?}\n{after}"
    );
    plans.len()
}

#[test]
fn every_corpus_offer_applies_as_advertised() {
    let rules = RuleSet::builtin().expect("built-ins load");
    let corpus = common::corpus();
    let mut files: Vec<_> = std::fs::read_dir(corpus.join("expected"))
        .expect("corpus/expected exists")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let (mut models, mut applied) = (0, 0);
    for file in files {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).expect("readable")).expect("json");
        let rel = v["path"].as_str().expect("path");
        for model in common::read_programs(&corpus.join(rel)) {
            applied += check_offers(&rules, &model, rel);
            models += 1;
        }
    }
    assert!(models > 40, "only {models} corpus models");
    // The H1 packages, the blend, the converter-made chains and the compiled H1 models.
    assert!(applied >= 10, "only {applied} plans applied");
}

fn dims_text(d: &[u64]) -> String {
    let v: Vec<String> = d.iter().map(u64::to_string).collect();
    format!("[{}]", v.join(", "))
}

fn ints(name: &str, v: &[i64]) -> String {
    let s: Vec<String> = v.iter().map(i64::to_string).collect();
    format!(
        "            tensor<int32, [{n}]> {name} = const()[name = string(\"{name}\"), val = tensor<int32, [{n}]>([{}])];\n",
        s.join(", "),
        n = v.len()
    )
}

fn bools(name: &str, v: &[bool]) -> String {
    let s: Vec<String> = v.iter().map(bool::to_string).collect();
    format!(
        "            tensor<bool, [{n}]> {name} = const()[name = string(\"{name}\"), val = tensor<bool, [{n}]>([{}])];\n",
        s.join(", "),
        n = v.len()
    )
}

/// How the one write of a single-function variant is made.
#[derive(Clone, Copy, Debug)]
enum Window {
    Plain,
    EndMask,
    Negative,
    Computed,
    RuntimeBegin,
    FromShape,
    Blend,
    /// torch.export's chain: a one-row write at a run-time row inside a full-window wrapper.
    WrappedRow,
    /// A full inner window inside a full-window wrapper: unwrapped, then padded.
    WrappedWhole,
}

/// A single-function program writing the whole of a state of dims `d`.
fn single(d: &[u64], window: Window, return_read: bool) -> String {
    let r = d.len();
    let t = format!("tensor<fp16, {}>", dims_text(d));
    let di: Vec<i64> = d.iter().map(|&x| x as i64).collect();
    let zeros = vec![0i64; r];
    let mut body = String::new();
    let su = |args: &str| {
        format!("            {t} new = slice_update({args}, update = u, x = old)[name = string(\"upd\")];\n")
    };
    let read = format!("            {t} old = read_state(input = s)[name = string(\"old\")];\n");
    match window {
        Window::Plain => {
            body += &ints("b", &zeros);
            body += &ints("e", &di);
            body += &read;
            body += &su("begin = b, end = e");
        }
        Window::EndMask => {
            body += &ints("b", &zeros);
            body += &ints("e", &zeros);
            body += &bools("em", &vec![true; r]);
            body += &read;
            body += &su("begin = b, end = e, end_mask = em");
        }
        Window::Negative => {
            let neg: Vec<i64> = di.iter().map(|x| -x).collect();
            body += &ints("b", &neg);
            body += &ints("e", &di);
            body += &read;
            body += &su("begin = b, end = e");
        }
        Window::Computed => {
            let half: Vec<i64> = di.iter().map(|x| x / 2).collect();
            let rest: Vec<i64> = di.iter().map(|x| x - x / 2).collect();
            body += &ints("b", &zeros);
            body += &ints("e1", &half);
            body += &ints("e2", &rest);
            body += &format!(
                "            tensor<int32, [{r}]> e = add(x = e1, y = e2)[name = string(\"e\")];\n"
            );
            body += &read;
            body += &su("begin = b, end = e");
        }
        Window::RuntimeBegin => {
            body += &ints("e", &di);
            body += &read;
            body += &su("begin = pos, end = e");
        }
        Window::FromShape => {
            body += &ints("d", &di);
            body += &ints("e", &di);
            body += &read;
            body += &format!(
                "            tensor<int32, [{r}]> sx = shape(x = old)[name = string(\"sx\")];\n"
            );
            body += &format!(
                "            tensor<int32, [{r}]> b = sub(x = sx, y = d)[name = string(\"b\")];\n"
            );
            body += &su("begin = b, end = e");
        }
        Window::WrappedRow | Window::WrappedWhole => {
            let mut row = d.to_vec();
            let axis = r.saturating_sub(2);
            let inner_len: Vec<i64> = match window {
                Window::WrappedRow => {
                    row[axis] = 1;
                    row.iter().map(|&x| x as i64).collect()
                }
                _ => di.clone(),
            };
            body += &ints("zero", &zeros);
            body += &ints("all", &di);
            body += &ints("len", &inner_len);
            let begin = match window {
                Window::WrappedRow => "pos",
                _ => "zero",
            };
            body += &format!("            tensor<int32, [{r}]> ie = add(x = {begin}, y = len)[name = string(\"ie\")];\n");
            body += &read;
            let tr = format!("tensor<fp16, {}>", dims_text(&row));
            let upd = match window {
                Window::WrappedRow => {
                    body += &format!("            {tr} k = slice_by_index(begin = zero, end = len, x = u)[name = string(\"k\")];\n");
                    "k"
                }
                _ => "u",
            };
            body += &format!("            {t} inner = slice_update(begin = {begin}, end = ie, update = {upd}, x = old)[name = string(\"inner\")];\n");
            body += &format!("            {t} new = slice_update(begin = zero, end = all, update = inner, x = old)[name = string(\"upd\")];\n");
        }
        Window::Blend => {
            body += &read;
            body +=
                &format!("            {t} new = add(x = old, y = u)[name = string(\"upd\")];\n");
        }
    }
    body += "            write_state(data = new, input = s)[name = string(\"w\")];\n";
    body += &format!("            {t} cur = read_state(input = s)[name = string(\"cur\")];\n");
    let ret = if return_read { "cur" } else { "u" };
    format!(
        "program(1.3)\n{{\n    func main<ios18>(state<{t}> s, {t} u, tensor<int32, [{r}]> pos) {{\n{body}        }} -> ({ret});\n}}\n"
    )
}

/// `prefill` writes the whole state; `infer` writes one index of axis `axis` at a run-time position.
fn prefill_infer(d: &[u64], axis: usize, return_read: bool) -> String {
    let r = d.len();
    let t = format!("tensor<fp16, {}>", dims_text(d));
    let mut row = d.to_vec();
    row[axis] = 1;
    let tr = format!("tensor<fp16, {}>", dims_text(&row));
    let di: Vec<i64> = d.iter().map(|&x| x as i64).collect();
    let ri: Vec<i64> = row.iter().map(|&x| x as i64).collect();
    let ret = if return_read { "cur" } else { "y" };
    let mut infer = String::new();
    infer += &ints("len", &ri);
    infer += &format!(
        "            tensor<int32, [{r}]> e = add(x = pos, y = len)[name = string(\"e\")];\n"
    );
    infer += &format!("            {t} old = read_state(input = s)[name = string(\"old\")];\n");
    infer += &format!("            {t} new = slice_update(begin = pos, end = e, update = k, x = old)[name = string(\"upd\")];\n");
    infer += "            write_state(data = new, input = s)[name = string(\"w\")];\n";
    infer += &format!("            {t} cur = read_state(input = s)[name = string(\"cur\")];\n");
    infer += &format!("            {t} y = mul(x = cur, y = cur)[name = string(\"y\")];\n");
    let mut prefill = String::new();
    prefill += &ints("b", &vec![0; r]);
    prefill += &ints("e", &di);
    prefill += &format!("            {t} old = read_state(input = s)[name = string(\"old\")];\n");
    prefill += &format!("            {t} new = slice_update(begin = b, end = e, update = u, x = old)[name = string(\"upd\")];\n");
    prefill += "            write_state(data = new, input = s)[name = string(\"w\")];\n";
    format!(
        "program(1.3)\n{{\n    func infer<ios18>(state<{t}> s, {tr} k, tensor<int32, [{r}]> pos) {{\n{infer}        }} -> ({ret});\n    func prefill<ios18>(state<{t}> s, {t} u) {{\n{prefill}        }} -> (u);\n}}\n"
    )
}

#[test]
fn generated_variants_offer_only_fixes_that_apply() {
    let rules = RuleSet::builtin().expect("built-ins load");
    let shapes: [&[u64]; 4] = [&[6], &[3, 6], &[2, 6, 4], &[2, 3, 6, 4]];
    let (mut offered, mut refused) = (0, 0);
    for d in shapes {
        for window in [
            Window::Plain,
            Window::EndMask,
            Window::Negative,
            Window::Computed,
            Window::RuntimeBegin,
            Window::FromShape,
            Window::Blend,
            Window::WrappedRow,
            Window::WrappedWhole,
        ] {
            for ret in [false, true] {
                let label = format!("{d:?} {window:?} returned-read={ret}");
                let mil = single(d, window, ret);
                let model = snippet_model("variant.mil", &mil)
                    .unwrap_or_else(|e| panic!("{label}: {e}\n{mil}"));
                let n = check_offers(&rules, &model, &label);
                if let Window::WrappedRow = window {
                    let rules_fired: Vec<String> = match_model(&model, &rules, &Default::default())
                        .into_iter()
                        .map(|f| f.rule)
                        .collect();
                    assert!(
                        rules_fired.iter().any(|r| r == "state-dynamic-begin"),
                        "{label}: the inner run-time begin is reported: {rules_fired:?}"
                    );
                }
                match window {
                    Window::FromShape => {
                        assert_eq!(n, 0, "{label}: a window from a shape must not be offered");
                        refused += 1;
                    }
                    _ => {
                        assert_eq!(n, 1, "{label}: expected an offered fix\n{mil}");
                        offered += 1;
                    }
                }
            }
        }
        for axis in 0..d.len() {
            for ret in [false, true] {
                let label = format!("{d:?} prefill/infer on axis {axis} returned-read={ret}");
                let mil = prefill_infer(d, axis, ret);
                let model = snippet_model("pair.mil", &mil)
                    .unwrap_or_else(|e| panic!("{label}: {e}\n{mil}"));
                assert_eq!(check_offers(&rules, &model, &label), 1, "{label}\n{mil}");
                offered += 1;
            }
        }
    }
    assert!(
        offered > 60 && refused == 8,
        "{offered} offered, {refused} refused"
    );
}
