//! A pipeline's non-maximum suppression stage: the fields of `Model.nonMaximumSuppression`
//! (field 610) that say which features it reads and how many class labels it holds. The messages
//! are written here from the public spec's field numbers (FIELD-HAZARDS-4 G3); prost skips every
//! other field of the `Model`.

use prost::Message;

/// `Model`, only its `nonMaximumSuppression` member.
#[derive(Clone, PartialEq, Message)]
struct NmsModel {
    #[prost(message, optional, tag = "610")]
    nms: Option<NonMaximumSuppression>,
}

/// `NonMaximumSuppression`: the labels and the feature names.
#[derive(Clone, PartialEq, Message)]
struct NonMaximumSuppression {
    /// `stringClassLabels`.
    #[prost(message, optional, tag = "100")]
    string_labels: Option<StringVector>,
    /// `int64ClassLabels`.
    #[prost(message, optional, tag = "101")]
    int64_labels: Option<Int64Vector>,
    #[prost(string, tag = "200")]
    confidence_input: String,
    #[prost(string, tag = "201")]
    coordinates_input: String,
}

/// `StringVector { repeated string vector = 1; }`.
#[derive(Clone, PartialEq, Message)]
struct StringVector {
    #[prost(string, repeated, tag = "1")]
    vector: Vec<String>,
}

/// `Int64Vector { repeated int64 vector = 1; }`.
#[derive(Clone, PartialEq, Message)]
struct Int64Vector {
    #[prost(int64, repeated, tag = "1")]
    vector: Vec<i64>,
}

/// What an NMS stage's message says, or `None` when `bytes` (a `Model`) holds no NMS message or
/// does not decode as one.
#[derive(Debug)]
pub(crate) struct NmsFields {
    pub(crate) confidence_input: String,
    pub(crate) coordinates_input: String,
    pub(crate) labels: u64,
    pub(crate) label_kind: &'static str,
}

/// Reads the NMS message of the `Model` in `bytes`.
pub(crate) fn read_nms(bytes: &[u8]) -> Option<NmsFields> {
    let nms = NmsModel::decode(bytes).ok()?.nms?;
    let (labels, label_kind) = match (&nms.string_labels, &nms.int64_labels) {
        (Some(s), _) => (s.vector.len() as u64, "string"),
        (None, Some(i)) => (i.vector.len() as u64, "int64"),
        (None, None) => (0, "none"),
    };
    Some(NmsFields {
        confidence_input: nms.confidence_input,
        coordinates_input: nms.coordinates_input,
        labels,
        label_kind,
    })
}

impl NmsFields {
    /// What was read, for the list of stages without a program.
    pub(crate) fn summary(&self) -> String {
        let labels = match self.label_kind {
            "none" => "no class labels".to_string(),
            kind => format!("{} {kind} class labels", self.labels),
        };
        format!(
            "read: {labels}, confidence from `{}`, coordinates from `{}`",
            self.confidence_input, self.coordinates_input
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_labels_and_the_feature_names() {
        let m = NmsModel {
            nms: Some(NonMaximumSuppression {
                string_labels: Some(StringVector {
                    vector: vec!["a".into(), "b".into(), "c".into()],
                }),
                int64_labels: None,
                confidence_input: "confidence".into(),
                coordinates_input: "coordinates".into(),
            }),
        };
        let got = read_nms(&m.encode_to_vec()).unwrap();
        assert_eq!(got.labels, 3);
        assert_eq!(got.label_kind, "string");
        assert_eq!(got.confidence_input, "confidence");
        assert_eq!(
            got.summary(),
            "read: 3 string class labels, confidence from `confidence`, coordinates from `coordinates`"
        );
        assert!(read_nms(&NmsModel { nms: None }.encode_to_vec()).is_none());
        assert!(read_nms(&[0xff, 0xff]).is_none());
    }
}
