//! Pagination of the long lists (runs, kernels, a kernel's runs).

use serde::Serialize;

/// Rows per page of every paginated list.
pub const PAGE_SIZE: usize = 100;

#[derive(Serialize, Default)]
pub struct PagerItem {
    pub label: String,
    pub href: Option<String>,
    pub current: bool,
}

#[derive(Serialize, Default)]
pub struct Pager {
    pub items: Vec<PagerItem>,
    pub prev: Option<String>,
    pub next: Option<String>,
}

/// Navigation for page `cur` of `total` (1-based). `path(n)` gives page n's site path; links
/// are made relative to `root`. Shows the first, last and nearby pages so that the pager stays
/// small however many pages there are.
pub fn pager(cur: usize, total: usize, root: &str, path: impl Fn(usize) -> String) -> Pager {
    let mut p = Pager::default();
    if total <= 1 {
        return p;
    }
    let href = |n: usize| Some(format!("{root}{}", path(n)));
    let mut last_shown = 0;
    for n in 1..=total {
        let show = n == 1 || n == total || n.abs_diff(cur) <= 3;
        if !show {
            continue;
        }
        if n > last_shown + 1 {
            p.items.push(PagerItem::default());
        }
        p.items.push(PagerItem {
            label: n.to_string(),
            href: if n == cur { None } else { href(n) },
            current: n == cur,
        });
        last_shown = n;
    }
    if cur > 1 {
        p.prev = href(cur - 1);
    }
    if cur < total {
        p.next = href(cur + 1);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_is_bounded_and_links_neighbours() {
        let p = pager(50, 500, "../", |n| format!("runs/page-{n}.html"));
        // first, …, 47..53, …, last
        assert_eq!(p.items.len(), 1 + 1 + 7 + 1 + 1);
        assert_eq!(p.prev.as_deref(), Some("../runs/page-49.html"));
        assert_eq!(p.next.as_deref(), Some("../runs/page-51.html"));
        assert!(p.items.iter().any(|i| i.current && i.label == "50"));
        assert!(pager(1, 1, "", |n| n.to_string()).items.is_empty());
    }
}
