//! An op's attributes: a few `key = literal` pairs, kept sorted by key in one vector (a `BTreeMap`
//! allocates a node for 11 entries per op, most ops have one or two).

use std::ops::Index;

use super::literal::Literal;
use super::name::Name;

/// Attributes by key, sorted; at most one literal per key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributes(Vec<(Name, Literal)>);

impl Attributes {
    /// No attributes.
    pub(crate) fn new() -> Attributes {
        Attributes(Vec::new())
    }

    /// Attributes from pairs already sorted by key, each key once.
    pub(crate) fn from_sorted(pairs: Vec<(Name, Literal)>) -> Attributes {
        debug_assert!(pairs.windows(2).all(|w| match w {
            [a, b] => a.0 < b.0,
            _ => true,
        }));
        Attributes(pairs)
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The literal of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Literal> {
        self.position(key)
            .ok()
            .and_then(|i| self.0.get(i))
            .map(|(_, v)| v)
    }

    /// True when `key` is set.
    #[cfg(test)]
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Sets `key`, returning the literal it replaces.
    pub(crate) fn insert(&mut self, key: Name, value: Literal) -> Option<Literal> {
        match self.position(&key) {
            Ok(i) => self
                .0
                .get_mut(i)
                .map(|slot| std::mem::replace(&mut slot.1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    /// Frees the room reserved for more attributes.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }

    /// True when there are no attributes.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of attributes.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Literals in key order.
    pub fn values(&self) -> impl Iterator<Item = &Literal> + '_ {
        self.0.iter().map(|(_, v)| v)
    }

    /// Keys and literals in key order, the literals mutable (keys keep the order).
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&mut Name, &mut Literal)> + '_ {
        self.0.iter_mut().map(|(k, v)| (k, v))
    }

    /// Pairs in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Name, &Literal)> + '_ {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl Index<&str> for Attributes {
    type Output = Literal;

    /// Panics when `key` is absent, like a map's index.
    fn index(&self, key: &str) -> &Literal {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no attribute `{key}`"),
        }
    }
}

impl<'a> IntoIterator for &'a Attributes {
    type Item = (&'a Name, &'a Literal);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Name, Literal)>,
        fn(&'a (Name, Literal)) -> (&'a Name, &'a Literal),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Into<Name>> FromIterator<(K, Literal)> for Attributes {
    /// Later pairs replace earlier ones with the same key, as in a map.
    fn from_iter<I: IntoIterator<Item = (K, Literal)>>(iter: I) -> Attributes {
        let mut out = Attributes::new();
        for (k, v) in iter {
            out.insert(k.into(), v);
        }
        out
    }
}

impl<K: Into<Name>, const N: usize> From<[(K, Literal); N]> for Attributes {
    fn from(pairs: [(K, Literal); N]) -> Attributes {
        pairs.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DType, Payload, TensorData, TensorType, ValueType};

    fn int(v: i64) -> Literal {
        Literal {
            ty: ValueType::Tensor(TensorType::scalar(DType::Int32)),
            payload: Payload::Tensor(TensorData::Ints(vec![v])),
        }
    }

    #[test]
    fn sorted_unique_keys_like_a_map() {
        let mut a: Attributes = [("val".to_string(), int(1)), ("axis".to_string(), int(2))].into();
        assert_eq!(
            a.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["axis", "val"]
        );
        assert_eq!(a.insert("val".into(), int(3)), Some(int(1)));
        assert_eq!(a["val"], int(3));
        assert_eq!(a.len(), 2);
        assert!(a.contains_key("axis") && !a.contains_key("name"));
        assert!(a.get("b").is_none());
        a.insert("b".into(), int(4));
        assert_eq!(
            (&a).into_iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            ["axis", "b", "val"]
        );
    }
}
