//! `syscost list`: every scenario, whether it can run here, and if not, why.

use crate::cli::ListArgs;
use crate::engine::worker::{Reply, Worker};
use crate::engine::Plan;
use crate::error::Error;
use crate::report::stdout;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub fn run(args: &ListArgs) -> Result<i32, Error> {
    let select = &args.select;
    let mut plan = Plan::new(
        super::syscall(select.syscall),
        select.cpu,
        &select.only,
        &select.skip,
    )?;
    let stop = AtomicBool::new(false);
    let line = |s: String| stdout::print(&(s + "\n")).map_err(Error::Stdout);
    line(format!(
        "{:<28} {:<9} {:<8} description / reason",
        "scenario", "family", "runs?"
    ))?;
    for s in plan.scenarios.iter_mut() {
        // The real setup, in a throw-away worker: the only honest answer to "can it run here".
        let verdict = match Worker::spawn(s.as_mut(), plan.cpu, 1) {
            Ok(mut w) => {
                let r = w.recv(Duration::from_secs(20), &stop);
                w.shutdown();
                match r {
                    Ok(Reply::Ready) => Ok(()),
                    Ok(Reply::Skipped(why)) => Err(("no", why)),
                    Ok(Reply::Failed(why)) => Err(("error", why)),
                    Ok(other) => Err(("error", format!("unexpected reply {other:?}"))),
                    Err(e) => Err(("error", e.to_string())),
                }
            }
            Err(e) => Err(("error", format!("cannot fork: {e}"))),
        };
        let mut lines = vec![(s.id(), s.family().to_string(), s.description())];
        if let Some((id, description)) = s.untimed_result() {
            lines.push((id, "attach".into(), description));
        }
        for (id, family, description) in lines {
            line(match &verdict {
                Ok(()) => format!("{id:<28} {family:<9} {:<8} {description}", "yes"),
                Err((tag, why)) => format!("{id:<28} {family:<9} {tag:<8} {why}"),
            })?;
        }
    }
    Ok(0)
}
