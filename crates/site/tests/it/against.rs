//! A series' runs on one kernel version against the rest of their series there, and the series
//! against another machine on that version: the pages `compare/<arch>/<version>/machines/…`,
//! reached from the run page and, through the series' versions, from the machine page.

use crate::common::*;
use syscost_record::RunRecord;

/// A run on 6.8 whose SUD-allow overhead is `allow` ns [−1, +1], dated on day `day`.
fn on_6_8(seed: u64, day: u32, cpu: &str, allow: f64) -> RunRecord {
    edited(base_record(seed), |r| {
        let c = &mut r.environment.comparability;
        c.arch = "x86_64".into();
        c.kernel_release = "6.8.0-45-generic".into();
        c.cpu.model_name = Some(cpu.into());
        r.source.date = Some(format!("2026-01-{day:02}T00:00:00Z"));
        let x = r
            .results
            .iter_mut()
            .find(|x| x.id == "sud.allow")
            .expect("a sud.allow scenario");
        let o = x.overhead.as_mut().expect("its overhead");
        (o.median_ns, o.ci_low_ns, o.ci_high_ns) = (allow, Some(allow - 1.0), Some(allow + 1.0));
    })
}

fn text(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => tag = true,
            '>' => {
                tag = false;
                out.push(' ');
            }
            c if !tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "Is my run inside its series' spread?" and "how does my machine compare with others?":
/// three runs of one machine on 6.8, one of them far above the other two in SUD allow, and
/// one run of another machine; each run against the range the other runs of its series
/// predict, and the series against the other machine, with compare's verdicts.
#[test]
fn runs_are_set_against_their_series_and_machines_against_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let a = [
        on_6_8(80, 1, "Machine A", 50.0),
        on_6_8(80, 2, "Machine A", 51.0),
        on_6_8(80, 3, "Machine A", 80.0),
    ];
    let b = on_6_8(81, 4, "Machine B", 60.0);
    for r in a.iter().chain([&b]) {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("left out"), "{}", stderr(&o));
    assert_eq!(broken_links(&site), Vec::<String>::new());

    // The run page links its page against the series.
    let run_page = page_of(&site, &a[2].id);
    let html = std::fs::read_to_string(site.join(&run_page)).unwrap();
    let href = html
        .split("<a href=\"")
        .filter_map(|s| s.split_once("\">against the series and other machines<"))
        .map(|(h, _)| h.to_string())
        .next()
        .unwrap_or_else(|| panic!("no link against the series on {run_page}"));
    let target = resolve(&run_page, &href).expect("a link in the site");
    assert!(target.contains("/6.8/machines/"), "{target}");
    let page = std::fs::read_to_string(site.join(&target)).unwrap();

    // Each run has its row, newest first; the odd one lies above the range the other two
    // predict, the usual one within the range the other two (one of them the odd one) allow.
    let at = page.find("id=\"runs\"").expect("the runs section");
    let rows: Vec<String> = page[at..]
        .split("<tr>")
        .skip(2)
        .map(|r| text(r.split("</tbody>").next().unwrap_or(r)))
        .collect();
    let ids: Vec<&str> = rows.iter().filter_map(|r| r.split(' ').next()).collect();
    assert_eq!(ids, [&a[2].id, &a[1].id, &a[0].id], "{rows:?}");
    assert!(rows[0].contains("SUD allow above : 80.0 ns"), "{}", rows[0]);
    assert!(rows[0].contains("(2 runs)"), "{}", rows[0]);
    assert!(rows[1].contains("within on all"), "{}", rows[1]);

    // Against the other machine: machine A's three runs and machine B's one, each headline
    // number with its difference and verdict; SUD allow among them.
    let at = page.find("id=\"machines\"").expect("the machines section");
    let machines = &page[at..page.find("id=\"runs\"").unwrap()];
    let b_series = html_pages(&site)
        .find(|(rel, h)| {
            rel.starts_with("series/") && !rel[7..].contains('/') && h.contains("Machine B")
        })
        .map(|(rel, _)| rel[7..rel.len() - 5].to_string())
        .expect("machine B's series page");
    assert!(
        machines.contains(&format!("id=\"vs-{b_series}\"")),
        "{machines}"
    );
    let row = machines
        .split("<tr>")
        .find(|r| r.contains("sud-allow.html"))
        .map(text)
        .unwrap_or_else(|| panic!("no SUD allow row: {machines}"));
    assert!(row.contains(" ns ["), "{row}");
    assert!(
        ["slower", "faster", "no change", "inconclusive"]
            .iter()
            .any(|v| row.ends_with(v)),
        "{row}"
    );

    // The machine page leads to the series' versions, each to its page against the others.
    let env = std::fs::read_to_string(site.join(env_of(&html))).unwrap();
    let to_versions = env
        .split("<a href=\"")
        .filter_map(|s| s.split_once('"'))
        .map(|(h, _)| h)
        .find(|h| h.ends_with("#versions"))
        .expect("a link to the series' versions");
    let series = resolve(&env_of(&html), to_versions).unwrap();
    let series_html = std::fs::read_to_string(site.join(&series)).unwrap();
    let tail = &target[target.find("/6.8/").unwrap()..];
    assert!(
        series_html.contains(&format!("{tail}\">its runs and other machines<")),
        "no link to {target} on {series}"
    );
}

/// A version with more runs than a page lists one by one: only those outside the others'
/// range are listed, and the rest are counted, so the page keeps its bound.
#[test]
fn beyond_two_hundred_runs_only_those_outside_are_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut odd = String::new();
    for k in 0..203u32 {
        // 50 ns ± 0.5 from run to run, one run at 80.
        let allow = if k == 100 {
            80.0
        } else {
            50.0 + f64::from(k % 3) * 0.5
        };
        let r = edited(on_6_8(90, 1, "Machine A", allow), |r| {
            r.source.date = Some(format!("2026-01-01T{:02}:{:02}:00Z", k / 60, k % 60));
        });
        if k == 100 {
            odd.clone_from(&r.id);
        }
        save(&data, &r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = html_pages(&site)
        .find(|(rel, _)| rel.contains("/6.8/machines/"))
        .map(|(_, html)| html)
        .expect("the page of the series on 6.8");
    let runs = &page[page.find("id=\"runs\"").unwrap()..];
    let listed = runs.matches("<tr><td><a").count();
    assert_eq!(listed, 1, "{runs}");
    assert!(runs.contains(&odd), "{runs}");
    assert!(
        text(runs).contains("202 other runs within on every number"),
        "{}",
        text(runs)
    );
}
