//! The Atom feed: the newest dated changes and runs, with absolute links when the site has a
//! base URL.

use crate::model::changes::trends::{atom_date, Change};
use crate::model::metrics::{Registry, METRICS};
use crate::model::series::Unplaced;
use crate::model::summary::RunInfo;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format;
use crate::view::links::Links;
use serde::Serialize;
use syscost_record::SourceKind;

/// Changes, and runs, in the Atom feed (each at most).
const FEED_ENTRIES: usize = 50;

#[derive(Serialize)]
struct FeedEntry {
    id: String,
    title: String,
    updated: String,
    href: String,
    summary: String,
}

#[derive(Serialize)]
struct Feed {
    feed_id: String,
    updated: String,
    self_href: Option<String>,
    home_href: String,
    entries: Vec<FeedEntry>,
}

/// The Atom feed: the newest dated changes and the newest dated runs, newest first. Entries
/// without a date are left out rather than given one.
pub fn feed(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    // Feed readers need absolute links; without --base-url they are relative to the feed.
    let base = d.base_url.map(|b| format!("{}/", b.trim_end_matches('/')));
    let abs = |p: &str| format!("{}{p}", base.as_deref().unwrap_or(""));
    let mut entries: Vec<FeedEntry> = d
        .changes
        .iter()
        .filter(|c| c.date.is_some())
        .take(FEED_ENTRIES)
        .map(|c| change_entry(d.reg, c, &abs))
        .collect();
    entries.extend(
        d.g.newest
            .iter()
            .map(|&i| &d.runs[i])
            .filter_map(|r| Some((r, r.date.as_deref().and_then(atom_date)?)))
            .take(FEED_ENTRIES)
            .map(|(r, date)| run_entry(r, date, &d.headline, &abs)),
    );
    entries.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
    let updated = entries.iter().map(|e| e.updated.clone()).max();
    let feed = Feed {
        feed_id: base
            .as_deref()
            .map(|b| format!("{b}feed.xml"))
            .unwrap_or_else(|| "urn:syscost:feed".to_string()),
        // An empty feed has nothing to date it by but its own existence: the epoch says "no
        // entry yet" without inventing one.
        updated: updated.unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string()),
        self_href: base.as_deref().map(|b| format!("{b}feed.xml")),
        home_href: abs("index.html"),
        entries,
    };
    ctx.page("feed.xml", "feed.xml", &feed)
}

fn change_entry(reg: &Registry, c: &Change, abs: &dyn Fn(&str) -> String) -> FeedEntry {
    let k = reg.key(c.metric);
    let up = c.pair.diff.delta > 0.0;
    FeedEntry {
        id: format!("urn:syscost:change:{}", c.id(reg)),
        title: format!(
            "{} {} {} → {}: {} on {} (series {})",
            k.label(),
            if up { "rose" } else { "fell" },
            c.from,
            c.to,
            format::difference_in(&c.pair.diff, c.series.number_unit()),
            c.series.arch,
            c.series.id()
        ),
        updated: c.date.clone().unwrap_or_default(),
        href: abs(&Links.series_metric(&c.series, &k.slug())),
        summary: format!(
            "{}: {} on {}, {} on {}; noise floor {} {}. Series: {}",
            k.label(),
            format::point(&c.from_point),
            c.from,
            format::point(&c.to_point),
            c.to,
            format::ns(c.pair.floor),
            c.series.number_unit(),
            c.series.sentence()
        ),
    }
}

/// A run, dated by when it was taken or, for an import, by the date of the published log.
fn run_entry(
    r: &RunInfo,
    updated: String,
    headline: &[Option<u32>],
    abs: &dyn Fn(&str) -> String,
) -> FeedEntry {
    let summary = METRICS
        .iter()
        .zip(headline)
        .filter_map(|(m, id)| {
            let v = r.values.get((*id)?)?;
            Some(format!(
                "{}: {} {}",
                m.short,
                format::val(&v),
                r.series.number_unit()
            ))
        })
        .take(6)
        .collect::<Vec<_>>()
        .join("; ");
    FeedEntry {
        id: format!("urn:syscost:run:{}", r.id),
        title: format!(
            "{}: {} · Linux {} · {} · {} ({})",
            match r.kind {
                SourceKind::Import => "Imported run",
                _ => "New run",
            },
            match r.placed {
                Err(Unplaced::Arch | Unplaced::Both) => "architecture unknown",
                _ => r.arch.as_str(),
            },
            match r.placed {
                Err(Unplaced::Kernel | Unplaced::Both) => "version unknown",
                _ => r.kbase.as_str(),
            },
            r.series.cpu,
            r.series.per_op_words(),
            r.quality.grade.label()
        ),
        updated,
        href: abs(&Links.run(r)),
        summary,
    }
}
