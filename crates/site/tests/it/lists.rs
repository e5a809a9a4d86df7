//! The whole list of runs is reachable: by month from the run list, 100 a page.

use crate::common::*;
use std::collections::BTreeMap;

/// Every run is listed exactly once among the month pages the run list links to (following
/// each month's pages through their "older" links), newest first, at most 100 a page; a month
/// of 150 runs takes two pages.
#[test]
fn every_run_is_listed_once_by_month() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    syscost_synth::write(&data, 40, 9).unwrap();
    for k in 0..150u32 {
        let r = edited(base_record(200 + u64::from(k)), |r| {
            r.source.date = Some(format!("2025-06-{:02}T{:02}:00:00Z", 1 + k % 28, k % 24));
        });
        save(&data, &r);
    }
    let ids: Vec<String> = files(&data)
        .into_iter()
        .filter(|f| f.ends_with(".json"))
        .map(|f| id_of(&f))
        .collect();
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = std::fs::read_to_string(site.join("runs/index.html")).unwrap();
    let months = &index[index.find("id=\"months\"").expect("the months")..];
    let months = &months[..months.find("</ul>").unwrap()];
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut pages_of_june = 0;
    for first in links(months) {
        let mut page = resolve("runs/index.html", &first).unwrap();
        loop {
            let html = std::fs::read_to_string(site.join(&page)).unwrap();
            let body = &html[html.find("<tbody>").unwrap()..html.find("</tbody>").unwrap()];
            let rows = body.matches("<tr>").count();
            assert!((1..=100).contains(&rows), "{page}: {rows} rows");
            let dates: Vec<&str> = body
                .split("<tr><td>")
                .skip(1)
                .map(|r| &r[..r.find('<').unwrap()])
                .collect();
            assert!(
                dates.windows(2).all(|w| w[0] >= w[1]),
                "{page}: not newest first"
            );
            // A run's link names its section (`…#<id>`); the kernel's does not.
            for l in links(body).into_iter().filter(|l| l.contains('#')) {
                let id = l.rsplit('#').next().unwrap().to_string();
                *seen.entry(id).or_default() += 1;
            }
            pages_of_june += usize::from(page.starts_with("runs/2025-06"));
            let next = html
                .split("rel=\"next\"")
                .next()
                .and_then(|before| before.rsplit("href=\"").next())
                .filter(|_| html.contains("rel=\"next\""))
                .map(|h| h[..h.find('"').unwrap()].to_string());
            match next {
                Some(n) => page = resolve(&page, &n).unwrap(),
                None => break,
            }
        }
    }
    assert_eq!(pages_of_june, 2);
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "listed twice: {twice:?}");
    let listed: Vec<&String> = seen.keys().collect();
    let mut all: Vec<&String> = ids.iter().collect();
    all.sort();
    assert_eq!(listed, all);
}

/// The home page's headline table of a series writes its column of moves from the version
/// before only when some row has one: a series measured on one kernel version has none.
#[test]
fn a_series_on_one_version_has_no_column_of_moves_on_the_home_page() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    // One series on one version, another (its own machine) on two.
    save(&data, &base_record(1));
    for (day, kernel) in [(1, "6.6.0"), (2, "6.8.0")] {
        save(
            &data,
            &edited(base_record(2), |r| {
                r.environment.comparability.kernel_release = kernel.into();
                r.environment.comparability.cpu.model_name = Some("Other CPU".into());
                r.source.date = Some(format!("2025-06-0{day}T00:00:00Z"));
            }),
        );
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let home = std::fs::read_to_string(site.join("index.html")).unwrap();
    let tables: Vec<&str> = home
        .split("aria-label=\"Headline numbers of series ")
        .skip(1)
        .map(|t| &t[..t.find("</table>").unwrap()])
        .collect();
    let (with, without): (Vec<&str>, Vec<&str>) = tables
        .iter()
        .partition(|t| t.contains("<th>from the version before</th>"));
    assert!(!with.is_empty() && !without.is_empty(), "{tables:#?}");
    // Where the column is, a move is in it.
    for t in with {
        let cells: Vec<&str> = t
            .split("data-label=\"from the version before\">")
            .skip(1)
            .map(|c| &c[..c.find("</td>").unwrap()])
            .collect();
        assert!(cells.iter().any(|c| !c.trim().is_empty()), "{t}");
    }
}
