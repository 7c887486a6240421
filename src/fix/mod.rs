//! Fixes: graph rewrites, write-back (protobuf / text) and atomic file replacement.
