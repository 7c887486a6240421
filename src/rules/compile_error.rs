//! The error of a rule file that does not compile.

/// A problem in a rule file, with the YAML path of the key it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub path: Vec<String>,
    pub message: String,
}

/// A compiler that collects errors at the YAML path of the key it is compiling (the node rule
/// compiler and the entity rule compiler).
pub(crate) trait ErrorPath: Sized {
    /// The path of the key being compiled.
    fn path(&mut self) -> &mut Vec<String>;
    /// The errors collected so far.
    fn errors(&mut self) -> &mut Vec<CompileError>;

    /// An error at `key` below the current path (at the path itself when `key` is empty).
    fn error(&mut self, key: &str, message: impl Into<String>) {
        let mut path = self.path().clone();
        if !key.is_empty() {
            path.push(key.to_string());
        }
        self.errors().push(CompileError {
            path,
            message: message.into(),
        });
    }

    /// Runs `f` with `key` appended to the path.
    fn nested<T>(&mut self, key: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.path().push(key.to_string());
        let out = f(self);
        self.path().pop();
        out
    }
}
