//! The prose pages (methodology, how to submit, about): Markdown under `crates/site/content/`,
//! compiled in and rendered with pulldown-cmark into the page template.

use crate::view::ctx::Ctx;
use crate::view::error::BuildError;
use pulldown_cmark::{html, Options, Parser};
use serde::Serialize;

const PAGES: &[(&str, &str)] = &[
    (
        "methodology",
        include_str!("../../../content/methodology.md"),
    ),
    ("submit", include_str!("../../../content/submit.md")),
    ("about", include_str!("../../../content/about.md")),
];

#[derive(Serialize)]
struct Page {
    root: &'static str,
    title: String,
    body: String,
}

/// Markdown → HTML. The sources are the project's own files, not submitted data.
pub fn markdown(src: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_HEADING_ATTRIBUTES);
    let mut out = String::with_capacity(src.len() * 2);
    html::push_html(&mut out, Parser::new_ext(src, opts));
    out
}

/// The first `# ` heading, used as the page title.
fn title_of(src: &str, fallback: &str) -> String {
    src.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|| fallback.to_string())
}

pub fn write(ctx: &mut Ctx) -> Result<(), BuildError> {
    for (name, src) in PAGES {
        let page = Page {
            root: "",
            title: title_of(src, name),
            body: markdown(src),
        };
        ctx.page(&format!("{name}.html"), "page.html", &page)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_tables_and_titles() {
        let h = markdown("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(h.contains("<table>") && h.contains("<h1>T</h1>"), "{h}");
        assert_eq!(title_of("intro\n# Hello \n", "x"), "Hello");
        assert_eq!(title_of("none", "x"), "x");
    }

    #[test]
    fn content_links_are_relative() {
        for (name, src) in PAGES {
            let h = markdown(src);
            for part in h.split("href=\"").skip(1) {
                let target = part.split('"').next().unwrap_or("");
                let external = target.starts_with("https://") || target.starts_with('#');
                assert!(
                    external || !target.starts_with('/'),
                    "{name}: absolute link {target}"
                );
            }
        }
    }
}
