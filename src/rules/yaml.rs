//! The one place that touches the YAML crate (serde_yaml is archived upstream; swap it here).

/// A YAML document that did not deserialize, with its position when known.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    pub message: String,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    /// Byte offset of the problem.
    pub offset: Option<usize>,
}

/// Deserializes one YAML document.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_yaml::from_str(text).map_err(|e| {
        let loc = e.location();
        YamlError {
            message: e.to_string(),
            location: loc.as_ref().map(|l| (l.line(), l.column())),
            offset: loc.map(|l| l.index()),
        }
    })
}
