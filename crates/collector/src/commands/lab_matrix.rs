//! `syscost lab-matrix`: boots every cached kernel in turn (one guest at a time), runs the
//! default suite in each, and judges every scenario against its kernel
//! ([`crate::lab::judge`]); prints the kernel × scenario table.

use super::lab::{boot_limit, cache_dir, check_run_args, contents, Guest, WorkDir};
use crate::cli::LabMatrixArgs;
use crate::error::Error;
use crate::lab::judge::{cached_kernels, Column, Kernel, Matrix};
use crate::lab::{self, Spec};
use crate::report::json::{save_record, write_output};
use crate::sys::signals;
use std::time::Instant;

pub fn run(args: &LabMatrixArgs) -> Result<i32, Error> {
    let cache = args.cache.clone().or_else(cache_dir).ok_or_else(|| {
        Error::Argument("no lab cache: give --cache, or set HOME or XDG_CACHE_HOME".into())
    })?;
    let kernels = selected(args, &cache)?;
    if let Some(path) = &args.markdown {
        crate::report::json::check_writable_file(path).map_err(Error::Destination)?;
    }
    if kernels.is_empty() {
        return Err(Error::Argument(format!(
            "no kernels in {} (fetch them with scripts/lab-kernels)",
            cache.join("kernels").display()
        )));
    }
    let mut run_args = vec!["--budget".to_string(), args.budget.to_string()];
    run_args.extend(args.run_args.iter().cloned());
    let budget = check_run_args(&run_args)?;
    let guest = Guest::of(&args.guest)?;
    let stop = signals::stop_flag();
    let work = WorkDir::new("lab-matrix")?;
    let started = Instant::now();
    let mut columns = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        eprintln!(
            "syscost lab-matrix: [{}/{}] {} ({})",
            i + 1,
            kernels.len(),
            k.label(),
            k.image.display()
        );
        let boot_timeout = boot_limit(&args.guest, k.arch)?;
        let spec = Spec {
            kernel: k.image.clone(),
            arch: k.arch,
            accel: guest.accel,
            clock: guest.clock,
            config: k.config_path.clone(),
            cpus: guest.cpus,
            mem_mib: args.guest.mem,
            boot_timeout,
            timeout: guest.timeout(boot_timeout, budget),
            contents: contents(
                k.arch,
                &args.guest,
                k.config_path.clone(),
                guest.run_args(&run_args),
            )?,
            append: args.guest.append.clone(),
            work_dir: work.0.join(format!("{}-{}", k.arch, k.release)),
        };
        let column = match lab::run(&spec, &stop, &mut |m| eprintln!("syscost lab-matrix: {m}")) {
            Ok(o) => {
                eprintln!(
                    "syscost lab-matrix: {}: init after {}, done in {:.0} s",
                    k.label(),
                    o.boot_s.map_or("?".into(), |b| format!("{b:.1} s")),
                    o.total_s
                );
                if let Some(dir) = &args.save {
                    let (path, _) = save_record(dir, o.record.clone())?;
                    eprintln!("syscost lab-matrix: record saved as {}", path.display());
                }
                Column::Ran {
                    record: Box::new(o.record),
                    boot_s: o.boot_s,
                    total_s: o.total_s,
                }
            }
            Err(lab::LabError::Interrupted) => return Err(lab::LabError::Interrupted.into()),
            Err(e) => {
                eprintln!("syscost lab-matrix: {}: {e}", k.label());
                Column::NoRecord(e.to_string())
            }
        };
        columns.push(column);
    }
    let matrix = Matrix { kernels, columns };
    let text = matrix.markdown();
    print!("{text}");
    if let Some(path) = &args.markdown {
        write_output(path, text.as_bytes())?;
        eprintln!("syscost lab-matrix: table written to {}", path.display());
    }
    eprintln!(
        "syscost lab-matrix: {} kernel(s) in {:.0} s",
        matrix.kernels.len(),
        started.elapsed().as_secs_f64()
    );
    let findings = matrix.findings().len();
    if findings > 0 {
        return Err(Error::MatrixFailed(findings));
    }
    Ok(0)
}

/// The cached kernels the matrix boots: all, or for each `--kernels` prefix the newest release
/// it matches (the cache may hold every Debian 6.12.x, after scripts/lab-kernels --every).
fn selected(args: &LabMatrixArgs, cache: &std::path::Path) -> Result<Vec<Kernel>, Error> {
    let mut kernels = cached_kernels(cache);
    if !args.kernels.is_empty() {
        for spec in &args.kernels {
            if !kernels.iter().any(|k| k.matches(spec)) {
                return Err(Error::Argument(format!(
                    "--kernels {spec}: no such kernel in {} (have: {}); fetch it with \
                     scripts/lab-kernels {spec}",
                    cache.display(),
                    kernels
                        .iter()
                        .map(|k| format!("{}:{}", k.arch, k.release))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        let newest: Vec<String> = args
            .kernels
            .iter()
            .filter_map(|s| {
                kernels
                    .iter()
                    .filter(|k| k.matches(s))
                    .max_by_key(|k| release_order(&k.release))
                    .map(|k| format!("{}:{}", k.arch, k.release))
            })
            .collect();
        kernels.retain(|k| newest.contains(&format!("{}:{}", k.arch, k.release)));
    }
    Ok(kernels)
}

/// A release's numbers in order (`6.12.117+deb13-arm64` → 6, 12, 117, 13, 64), to find the
/// newest of several.
fn release_order(release: &str) -> Vec<u64> {
    release
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_release_sorts_last() {
        let mut r = [
            "6.12.95+deb12-arm64",
            "6.12.117+deb13-arm64",
            "6.12.90+deb12.1-arm64",
            "6.12.43+deb12-arm64",
        ];
        r.sort_by_key(|x| release_order(x));
        assert_eq!(r.last(), Some(&"6.12.117+deb13-arm64"));
    }
}
