//! How a rule compares one number with another (`min`, `above`, `multiple-of`, …): the same for
//! a value's numbers and a model-level entity's.

/// How a number compares with an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Min,
    Max,
    Above,
    Below,
    Equals,
    MultipleOf,
    NotMultipleOf,
}

impl Cmp {
    /// Each comparison with the key rules write it as.
    pub const KEYS: [(&'static str, Cmp); 7] = [
        ("min", Cmp::Min),
        ("max", Cmp::Max),
        ("above", Cmp::Above),
        ("below", Cmp::Below),
        ("equals", Cmp::Equals),
        ("multiple-of", Cmp::MultipleOf),
        ("not-multiple-of", Cmp::NotMultipleOf),
    ];

    /// Whether `n` compares so with `other`.
    pub fn holds<N: Copy + PartialOrd + std::ops::Rem<Output = N> + From<i8>>(
        self,
        n: N,
        other: N,
    ) -> bool {
        let zero = N::from(0);
        match self {
            Cmp::Min => n >= other,
            Cmp::Max => n <= other,
            Cmp::Above => n > other,
            Cmp::Below => n < other,
            Cmp::Equals => n == other,
            Cmp::MultipleOf => other != zero && n % other == zero,
            Cmp::NotMultipleOf => other != zero && n % other != zero,
        }
    }
}
