//! The template environment. Templates are files under `crates/site/templates/`, compiled into the
//! binary so it works from any directory. `.html` and `.xml` templates auto-escape every value;
//! only fields built by our own escaping code (SVG, rendered Markdown) are marked `|safe`.

use minijinja::value::Serde;
use minijinja::{
    syntax::SyntaxConfig, AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior,
};
use serde::Serialize;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("short.html", include_str!("../../templates/short.html")),
    ("macros.html", include_str!("../../templates/macros.html")),
    ("home.html", include_str!("../../templates/home.html")),
    ("runs.html", include_str!("../../templates/runs.html")),
    (
        "runs_month.html",
        include_str!("../../templates/runs_month.html"),
    ),
    ("kernels.html", include_str!("../../templates/kernels.html")),
    ("kernel.html", include_str!("../../templates/kernel.html")),
    ("arch.html", include_str!("../../templates/arch.html")),
    ("series.html", include_str!("../../templates/series.html")),
    (
        "series_metric.html",
        include_str!("../../templates/series_metric.html"),
    ),
    ("changes.html", include_str!("../../templates/changes.html")),
    (
        "change_group.html",
        include_str!("../../templates/change_group.html"),
    ),
    ("compare.html", include_str!("../../templates/compare.html")),
    ("against.html", include_str!("../../templates/against.html")),
    (
        "kernel_release.html",
        include_str!("../../templates/kernel_release.html"),
    ),
    (
        "matrices.html",
        include_str!("../../templates/matrices.html"),
    ),
    (
        "compare_index.html",
        include_str!("../../templates/compare_index.html"),
    ),
    (
        "unplaced.html",
        include_str!("../../templates/unplaced.html"),
    ),
    ("search.html", include_str!("../../templates/search.html")),
    ("metrics.html", include_str!("../../templates/metrics.html")),
    ("metric.html", include_str!("../../templates/metric.html")),
    ("matrix.html", include_str!("../../templates/matrix.html")),
    ("run.html", include_str!("../../templates/run.html")),
    ("env.html", include_str!("../../templates/env.html")),
    ("page.html", include_str!("../../templates/page.html")),
    ("feed.xml", include_str!("../../templates/feed.xml")),
];

/// Static files copied verbatim to the site root.
pub const STATIC: &[(&str, &str)] = &[
    ("style.css", include_str!("../../static/style.css")),
    ("sort.js", include_str!("../../static/sort.js")),
];

/// A template that does not compile or render: a bug in this program, not in the data.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template syntax: {0}")]
    Syntax(#[source] Error),
    #[error("template {name}: {source}")]
    Template { name: String, source: Error },
    #[error("rendering {name}: {source:#}")]
    Render { name: String, source: Error },
}

pub struct Renderer {
    env: Environment<'static>,
}

impl Renderer {
    pub fn new() -> Result<Renderer, RenderError> {
        let mut env = Environment::new();
        // A typo in a template should fail the build, not render an empty cell.
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(RenderError::Syntax)?;
        env.set_syntax(syntax);
        // Escape exactly what HTML needs (minijinja's default also rewrites every `/`, which
        // only bloats URLs); everything else goes through the default formatter.
        env.set_formatter(|out, state, value| {
            if matches!(state.auto_escape(), AutoEscape::Html) && !value.is_safe() {
                if let Some(s) = value.as_str() {
                    return crate::view::format::esc_into(out, s)
                        .map_err(|_| Error::new(ErrorKind::WriteFailure, "cannot write output"));
                }
            }
            minijinja::escape_formatter(out, state, value)
        });
        // `{{ n|count("run") }}` → "1 run", "3 runs"; an irregular plural as a second argument.
        env.add_filter(
            "count",
            |n: i64, one: String, many: Option<String>| -> String {
                if n == 1 {
                    format!("1 {one}")
                } else {
                    format!("{n} {}", many.unwrap_or_else(|| format!("{one}s")))
                }
            },
        );
        for (name, src) in TEMPLATES {
            env.add_template(name, src)
                .map_err(|source| RenderError::Template {
                    name: name.to_string(),
                    source,
                })?;
        }
        Ok(Renderer { env })
    }

    pub fn render<T: Serialize>(&self, name: &str, ctx: &T) -> Result<String, RenderError> {
        self.template(name)?
            .render(Serde(ctx))
            .map_err(|source| RenderError::Render {
                name: name.to_string(),
                source,
            })
    }

    /// [`Renderer::render`] into `out`, replacing what it held and keeping its allocation: a
    /// page of runs is hundreds of KB, and a string grown anew for each page was reallocated
    /// and copied a dozen times and faulted in fresh memory.
    pub fn render_into<T: Serialize>(
        &self,
        name: &str,
        ctx: &T,
        out: &mut Vec<u8>,
    ) -> Result<(), RenderError> {
        out.clear();
        self.template(name)?
            .render_captured_to(Serde(ctx), &mut *out)
            .map(drop)
            .map_err(|source| RenderError::Render {
                name: name.to_string(),
                source,
            })
    }

    fn template(&self, name: &str) -> Result<minijinja::Template<'_, '_>, RenderError> {
        self.env
            .get_template(name)
            .map_err(|source| RenderError::Template {
                name: name.to_string(),
                source,
            })
    }
}
