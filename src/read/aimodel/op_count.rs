//! How many ops a Core AI graph has, on the two bases a user meets: the top-level ops of the
//! program coreai-core prints (`str(AIModelAsset.load(p).program)`), and the `aicode` ops stored
//! in `main.mlirb` at any depth, which coreai-core's `operation_distribution` sums.

use super::ir_section::IrBlock;
use crate::ir::coreai::OpCounts;

/// The graph body's terminator: printed as `coreai.output`, listed by `dump` as the outputs.
pub const OUTPUT: &str = "aicode.dataflow.output_v1";
/// A region's terminator (a composite's decomposition, `scatter_nd`'s combiner).
pub const YIELD: &str = "aicode.dataflow.yield_v1";
/// The constant op, which neither `check` nor `--placement` counts.
pub const CONSTANT: &str = "aicode.primitive.constant_v1";

/// The counts of the graph whose body is `body`; `name` gives each op's stored name.
pub fn count<'a>(
    body: &'a IrBlock,
    name: impl Fn(&'a super::ir_section::IrOp) -> &'a str,
) -> OpCounts {
    let mut counts = OpCounts::default();
    for op in &body.ops {
        let stored = name(op);
        counts.top_level += 1;
        if stored != OUTPUT && stored != CONSTANT {
            counts.not_constants += 1;
        }
        op.walk(&mut |o| {
            let n = name(o);
            if n != OUTPUT && n != YIELD {
                counts.stored += 1;
            }
        });
    }
    counts
}
