//! "Did you mean …?" for names a user gets wrong (in a rule file, a config selector, a MIL op): the
//! closest known name by edit distance.

/// The candidate closest to `word`, when it is close enough to be a likely typo (at most a third
/// of the word's length in single-character edits, and at least one).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_within(word, candidates, (word.chars().count() / 3).max(1))
}

/// The candidate closest to `word` within `limit` single-character edits (the first of those at
/// the least distance, in the order of the candidates' text).
pub(crate) fn closest_within<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// `; did you mean `X`?` for the closest candidate, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map_or_else(String::new, |c| format!("; did you mean `{c}`?"))
}

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_name_and_strangers_do_not() {
        assert_eq!(edit_distance("OFSET", "OFFSET"), 1);
        assert_eq!(edit_distance("updat", "update"), 1);
        assert_eq!(edit_distance("relu6x", "relu"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(closest("OFSET", ["FILE", "OFFSET", "SIZE"]), Some("OFFSET"));
        assert_eq!(
            closest("blob-overlapp", ["blob-overlap", "blob-misaligned"]),
            Some("blob-overlap")
        );
        assert_eq!(closest("WINDOW", ["FILE", "OFFSET"]), None);
        assert_eq!(did_you_mean("X", ["FILE"]), "");
    }
}
