//! The table page in a real browser (filled in later).
