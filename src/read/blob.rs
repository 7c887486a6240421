//! Memory-mapped weight files (blob storage v2, FORMAT.md §4): header and records only.
