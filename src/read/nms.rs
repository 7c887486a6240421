//! A pipeline's non-maximum suppression stage: the fields of `Model.nonMaximumSuppression`
//! (field 610) that say which features it reads and how many class labels it holds, decoded with
//! the messages the one table of the wire format gives (`proto::NonMaximumSuppression`).

use prost::Message;

use super::proto::NonMaximumSuppression;

/// What an NMS stage's message says.
#[derive(Debug)]
pub(crate) struct NmsFields {
    pub(crate) confidence_input: String,
    pub(crate) coordinates_input: String,
    pub(crate) labels: u64,
    pub(crate) label_kind: &'static str,
}

/// Reads the NMS message in `bytes` (the `Model.nonMaximumSuppression` member, which the reader
/// keeps undecoded); `None` when it does not decode.
pub(crate) fn read_nms(bytes: &[u8]) -> Option<NmsFields> {
    let nms = NonMaximumSuppression::decode(bytes).ok()?;
    let (labels, label_kind) = match (&nms.string_class_labels, &nms.int64_class_labels) {
        (Some(s), _) => (s.vector.len() as u64, "string"),
        (None, Some(i)) => (i.vector.len() as u64, "int64"),
        (None, None) => (0, "none"),
    };
    Some(NmsFields {
        confidence_input: nms.confidence_input_feature_name,
        coordinates_input: nms.coordinates_input_feature_name,
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
    use crate::read::proto::{Int64Vector, StringVector};

    #[test]
    fn reads_the_labels_and_the_feature_names() {
        let nms = NonMaximumSuppression {
            string_class_labels: Some(StringVector {
                vector: vec!["a".into(), "b".into(), "c".into()],
            }),
            int64_class_labels: None,
            confidence_input_feature_name: "confidence".into(),
            coordinates_input_feature_name: "coordinates".into(),
        };
        let bytes = nms.encode_to_vec();
        let got = read_nms(&bytes).unwrap();
        assert_eq!(got.labels, 3);
        assert_eq!(got.label_kind, "string");
        assert_eq!(got.confidence_input, "confidence");
        assert_eq!(
            got.summary(),
            "read: 3 string class labels, confidence from `confidence`, coordinates from `coordinates`"
        );
        let ints = NonMaximumSuppression {
            string_class_labels: None,
            int64_class_labels: Some(Int64Vector {
                vector: vec![7; 80],
            }),
            ..nms
        };
        let got = read_nms(&ints.encode_to_vec()).unwrap();
        assert_eq!((got.labels, got.label_kind), (80, "int64"));
        assert_eq!(read_nms(&[]).unwrap().label_kind, "none");
        assert!(read_nms(&[0xff, 0xff]).is_none());
    }
}
