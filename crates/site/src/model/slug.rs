//! File-name components for labels that come from records (architectures, versions, metric
//! ids): safe whatever a record says, and distinct for distinct labels.

use sha2::{Digest, Sha256};

/// A file-name component for a label: the label itself when it is plainly safe, otherwise a
/// sanitised form plus a short hash so that distinct labels never share a file.
pub fn slug(label: &str) -> String {
    let plain = !label.is_empty()
        && label.len() <= 64
        && !label.starts_with('.')
        && label
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'));
    if plain {
        return label.to_string();
    }
    let digest = Sha256::digest(label.as_bytes());
    let h: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let base = syscost_record::sanitize_path_component(&label.to_ascii_lowercase());
    let base: String = base.trim_start_matches('.').chars().take(40).collect();
    format!("{base}-{h}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_and_distinct() {
        assert_eq!(slug("6.8-rc1"), "6.8-rc1");
        assert_eq!(slug("x86_64"), "x86_64");
        let a = slug("a/b");
        let b = slug("a_b");
        assert_ne!(a, b);
        assert!(!slug("..").starts_with('.'));
        assert!(slug("<script>")
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c)));
        assert_ne!(slug("X86"), slug("x86"));
    }
}
