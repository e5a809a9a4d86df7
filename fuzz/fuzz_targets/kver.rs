//! Kernel release strings: parsing never panics, ordering is a total order, and a base label
//! parses back to the same base.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cmp::Ordering;
use syscost_site::model::kver::{label_key, KernelVersion};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Up to three releases separated by newlines, to check the order's laws.
    let v: Vec<KernelVersion> = text.splitn(3, '\n').map(KernelVersion::parse).collect();
    for a in &v {
        assert_eq!(a.cmp(a), Ordering::Equal);
        let label = a.base_label();
        if let Some(base) = &a.base {
            assert_eq!(
                label_key(&label).base.as_ref(),
                Some(base),
                "label {label:?}"
            );
        }
        for b in &v {
            assert_eq!(a.cmp(b), b.cmp(a).reverse());
            assert_eq!(a == b, a.cmp(b) == Ordering::Equal);
            for c in &v {
                if a <= b && b <= c {
                    assert!(a <= c);
                }
            }
        }
    }
});
