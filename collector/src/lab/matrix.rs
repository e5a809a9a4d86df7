//! Judging a lab record against its kernel (in progress).
