//! The chains of runs assigned to the workers, and rendered by them in order.

use super::*;

/// One worker's share of [`Rendered`]; accepted runs carry their entry index.
#[derive(Default)]
pub(super) struct Share {
    pub(super) infos: Vec<(usize, Accepted)>,
    pub(super) rejected: Vec<Issue>,
    pub(super) warnings: Vec<Issue>,
    pub(super) parts: Parts,
    /// Runs summarised from the summary cache.
    pub(super) cached: usize,
}

/// The chains (ranges of consecutive entries with the same chain) spread over `jobs` workers:
/// each goes to the worker with the fewest runs so far, so the split is deterministic.
pub(super) fn assign_chains(entries: &[Entry], jobs: usize) -> Vec<Vec<Range<usize>>> {
    let mut work: Vec<Vec<Range<usize>>> = vec![Vec::new(); jobs];
    let mut load = vec![0usize; jobs];
    let mut start = 0;
    for i in 1..=entries.len() {
        if i == entries.len() || entries[i].chain != entries[start].chain {
            if i > start {
                let w = (0..jobs).min_by_key(|&w| (load[w], w)).unwrap_or(0);
                load[w] += i - start;
                work[w].push(start..i);
            }
            start = i;
        }
    }
    work
}

/// Renders the runs of some chains, each chain in order so every run is compared with the
/// runs before it in its series. Returns the worker's share and its metric registry.
pub(super) fn render_chains(
    entries: &[Entry],
    chains: &[Range<usize>],
    ctx: &Ctx,
    opts: &PassOptions,
) -> Result<(Share, Registry, Spellings), BuildError> {
    let mut w = Worker {
        ctx,
        opts,
        reg: Registry::default(),
        sp: Spellings::default(),
        calls: Lists::default(),
        replayed: Vec::new(),
        html: Vec::new(),
        reader: load::Reader::default(),
        envs: foldhash::HashMap::default(),
        out: Share::default(),
    };
    for chain in chains {
        // Valid copies of one record have the same content, hence the same chain.
        let mut kept: BTreeMap<&str, &str> = BTreeMap::new();
        let mut filling: Option<Filling> = None;
        let mut series: Option<Arc<SeriesKey>> = match &entries[chain.start].chain {
            Chain::Series(k) => Some(Arc::clone(k)),
            Chain::Alone(_) => None,
        };
        for i in chain.clone() {
            let e = &entries[i];
            let reject = |why: Rejection| Issue {
                path: e.cand.rel.clone(),
                message: why.to_string(),
            };
            if let Some(first) = kept.get(e.id.as_str()) {
                w.out.rejected.push(reject(duplicate(e, first)));
                continue;
            }
            // A kernel known only approximately has a page of its own: it could be the same
            // release as its neighbours, or another.
            let chained = matches!(e.chain, Chain::Series(_)) && !e.kernel.is_approximate();
            match second_pass_one(e, &mut w, series.as_ref())? {
                Ok((mut acc, mut pending)) => {
                    kept.insert(e.id.as_str(), e.cand.rel.as_str());
                    if matches!(e.chain, Chain::Series(_)) {
                        series = Some(Arc::clone(&acc.info.series));
                    }
                    if !chained {
                        // On no page of a series' runs: a page of its own.
                        let rel = format!("{}.html", acc.info.page);
                        acc.info.shown_on = 0;
                        w.out.infos.push((i, acc));
                        pending.prepare_timed(&mut w, true);
                        make_page(
                            &mut w,
                            &rel,
                            &mut vec![pending],
                            run::Pager::default(),
                            true,
                        )?;
                        continue;
                    }
                    // The runs of a version follow each other in a chain.
                    if let Some(mut f) = filling.take_if(|f| f.base != e.kernel.base) {
                        f.finish(&mut w, false)?;
                    }
                    let info = &acc.info;
                    let f = filling.get_or_insert_with(|| Filling {
                        base: e.kernel.base.clone(),
                        arch: info.arch.clone(),
                        kbase: info.kbase.clone(),
                        series: Arc::clone(&info.series),
                        before: 0,
                        runs: Vec::new(),
                        older: None,
                    });
                    if f.runs.len() == RUNS_A_PAGE {
                        f.finish(&mut w, true)?;
                    }
                    acc.info.shown_on = (f.before / RUNS_A_PAGE + 1) as u32;
                    w.out.infos.push((i, acc));
                    pending.prepare_timed(&mut w, f.runs.is_empty());
                    f.runs.push(pending);
                }
                Err(why) => w.out.rejected.push(reject(why)),
            }
        }
        if let Some(mut f) = filling.take() {
            f.finish(&mut w, false)?;
        }
    }
    w.out.parts.report(opts.timings);
    Ok((w.out, w.reg, w.sp))
}
