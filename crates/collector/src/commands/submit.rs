//! `syscost submit RECORD...` (and `syscost run --submit`): checks each record with the rules
//! `syscost-site check` holds a pull request's records to (one function of the record crate,
//! so nothing is sent that the check would refuse), shows what will be published, asks, and
//! opens the pull request through GitHub's `gh` command — or, without it, says what to do by
//! hand, with the exact paths.
//!
//! `gh` is only ever started directly with its arguments (never through a shell), and the
//! records travel to it as JSON request bodies on its standard input.

use crate::cli::SubmitTo;
use crate::error::{Error, GhError};
use base64::Engine;
use serde_json::{json, Value};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use syscost_record::check::{check_file, read_limited};
use syscost_record::RunRecord;

/// A record that passed the check, and where it goes in the repository.
pub struct Submission {
    /// What the user called it (the file given, or the run just measured).
    pub shown: String,
    pub bytes: Vec<u8>,
    pub record: RunRecord,
    /// `data/runs/<arch>/<kernel>/<id>.json`.
    pub dest: String,
}

/// The GitHub repository submissions go to (`--repo`: by default the one the workspace's
/// manifest names as `repository`).
pub struct Repo {
    pub owner: String,
    pub name: String,
}

impl Repo {
    pub fn of(arg: &str) -> Result<Repo, Error> {
        let text = arg
            .trim_start_matches("https://github.com/")
            .trim_end_matches('/')
            .trim_end_matches(".git");
        let bad = || {
            Error::Argument(format!(
                "--repo must be a GitHub repository as OWNER/NAME (letters, digits, '-', and \
                 also '.' and '_' in the name), got {text:?}"
            ))
        };
        let (owner, name) = text.split_once('/').ok_or_else(bad)?;
        let owner_ok = !owner.is_empty()
            && owner.len() <= 39
            && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        let name_ok = !name.is_empty()
            && name.len() <= 100
            && name != "."
            && name != ".."
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
        if !owner_ok || !name_ok {
            return Err(bad());
        }
        Ok(Repo {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    fn slug(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    fn url(&self) -> String {
        format!("https://github.com/{}", self.slug())
    }
}

/// `syscost submit`.
pub fn run(files: &[PathBuf], to: &SubmitTo) -> Result<i32, Error> {
    let repo = Repo::of(&to.repo)?;
    let subs = check_files(files)?;
    submit(&subs, &repo, to.yes, &mut std::io::stdout().lock())
}

/// What `syscost run --submit` can know before it measures: the repository is well formed,
/// and, when gh would send the record, someone can confirm (or `--yes` did).
pub fn precheck(to: &SubmitTo) -> Result<(), Error> {
    Repo::of(&to.repo)?;
    if !to.yes && !std::io::stdin().is_terminal() && Gh::find().is_ok() {
        return Err(Error::NoTerminal);
    }
    Ok(())
}

/// `syscost run --submit`: the record just written, in its file form.
pub fn run_record(record: &RunRecord, shown: &str, to: &SubmitTo) -> Result<i32, Error> {
    let repo = Repo::of(&to.repo)?;
    let bytes = syscost_record::to_file_json(record).into_bytes();
    let sub = checked(shown.to_string(), bytes)?;
    // Standard output holds the run's table or record.
    submit(&[sub], &repo, to.yes, &mut std::io::stderr().lock())
}

/// Reads and checks every file; any refusal is printed, and then nothing is sent.
fn check_files(files: &[PathBuf]) -> Result<Vec<Submission>, Error> {
    let mut subs: Vec<Submission> = Vec::new();
    let mut refused = 0;
    for f in files {
        let shown = f.display().to_string();
        let bytes = match read_limited(f) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("syscost submit: {}: {e}", clean(&shown));
                refused += 1;
                continue;
            }
        };
        match checked(shown, bytes) {
            Ok(s) => match subs.iter().find(|o| o.dest == s.dest) {
                Some(o) => {
                    eprintln!(
                        "syscost submit: {}: the same record as {}; give each record once",
                        clean(&s.shown),
                        clean(&o.shown)
                    );
                    refused += 1;
                }
                None => subs.push(s),
            },
            Err(Error::Refused(_)) => refused += 1,
            Err(e) => return Err(e),
        }
    }
    if refused > 0 {
        return Err(Error::Refused(refused));
    }
    Ok(subs)
}

/// One record held to the site's rules (what `syscost-site check` runs on every file).
fn checked(shown: String, bytes: Vec<u8>) -> Result<Submission, Error> {
    let verdict = check_file(&bytes, false);
    if !verdict.passed() {
        for p in &verdict.problems {
            eprintln!("syscost submit: {}: {}", clean(&shown), clean(p));
        }
        return Err(Error::Refused(1));
    }
    match (verdict.record, verdict.path) {
        (Some(record), Some(path)) => Ok(Submission {
            shown,
            bytes,
            record,
            dest: format!("data/{path}"),
        }),
        _ => Err(Error::Refused(1)),
    }
}

fn submit(subs: &[Submission], repo: &Repo, yes: bool, out: &mut dyn Write) -> Result<i32, Error> {
    let w = |e| Error::Stdout(e);
    describe(subs, repo, out).map_err(w)?;
    let gh = match Gh::find() {
        Ok(gh) => gh,
        Err(why) => {
            by_hand(subs, repo, &why.to_string(), out).map_err(w)?;
            return Ok(0);
        }
    };
    confirm(yes, subs.len(), repo)?;
    writeln!(out, "Opening the pull request with gh...").map_err(w)?;
    let url = gh.pull_request(subs, repo).map_err(Error::Gh)?;
    writeln!(out, "Pull request opened: {url}").map_err(w)?;
    Ok(0)
}

/// What will be published: the file's place and the machine facts a reader would not expect.
fn describe(subs: &[Submission], repo: &Repo, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "These records pass the site's check and would be published in {} (a public pull \
         request):",
        repo.url()
    )?;
    for s in subs {
        let r = &s.record;
        let c = &r.environment.comparability;
        writeln!(
            out,
            "\n  {}  ({} bytes, from {})",
            s.dest,
            s.bytes.len(),
            clean(&s.shown)
        )?;
        let opt = |o: &Option<String>| o.as_deref().map(clean).unwrap_or_else(|| "-".into());
        writeln!(
            out,
            "    kernel        {} {}",
            clean(&c.kernel_release),
            clean(&c.arch)
        )?;
        writeln!(out, "    kernel build  {}", opt(&c.kernel_version))?;
        writeln!(
            out,
            "    CPU           {} (microcode {}, {} logical CPUs)",
            opt(&c.cpu.model_name),
            opt(&c.cpu.microcode),
            c.cpu
                .logical_cpus
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into())
        )?;
        let v = &c.virtualization;
        writeln!(
            out,
            "    machine       {} {} {}",
            clean(&v.kind),
            opt(&v.hypervisor),
            opt(&v.product)
        )?;
        writeln!(out, "    command line  {}", opt(&c.cmdline))?;
        writeln!(
            out,
            "    host name     not included; it stands as the hash {}",
            opt(&r.environment.incidental.machine_hash)
        )?;
        writeln!(
            out,
            "    also          {} CPU vulnerability files, {} kernel options, the results",
            c.mitigations.len(),
            c.kernel_config.len()
        )?;
    }
    writeln!(
        out,
        "\nRead the files before you send them: every field is published."
    )
}

/// Without a usable `gh`: the steps by hand, with the exact paths.
fn by_hand(
    subs: &[Submission],
    repo: &Repo,
    why: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(out, "\nNothing was sent: {why}. To submit by hand:")?;
    writeln!(
        out,
        "  1. Fork {url} ({url}/fork), and in your fork make a branch.",
        url = repo.url()
    )?;
    writeln!(out, "  2. Add each file at exactly this path:")?;
    for s in subs {
        writeln!(out, "       {}   <- {}", s.dest, clean(&s.shown))?;
    }
    if let Some((dir, _)) = subs.first().and_then(|s| s.dest.rsplit_once('/')) {
        writeln!(
            out,
            "     (on GitHub: https://github.com/YOUR-NAME/{}/upload/YOUR-BRANCH/{dir})",
            repo.name
        )?;
    }
    writeln!(
        out,
        "  3. Open a pull request to {} from that branch; its check runs on it.",
        repo.slug()
    )?;
    writeln!(
        out,
        "Or, with no fork at all: open {}/issues/new?template=submit-run.yml and paste the \
         file's content (one record per issue).",
        repo.url()
    )
}

/// Asks on the terminal; `--yes` answers for scripts. With no terminal and no `--yes`, no one
/// can be asked: refused.
fn confirm(yes: bool, n: usize, repo: &Repo) -> Result<(), Error> {
    if yes {
        return Ok(());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(Error::NoTerminal);
    }
    eprint!(
        "Publish {n} record(s) as a pull request to {}? [y/N] ",
        repo.slug()
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    stdin.lock().read_line(&mut line).map_err(Error::Stdout)?;
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err(Error::NotConfirmed),
    }
}

/// Text from a record or a file name, one line and no terminal escapes.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Why the pull request is left to be opened by hand.
#[derive(Debug, thiserror::Error)]
enum NoGh {
    #[error("GitHub's gh command is not installed (https://cli.github.com)")]
    NotInstalled,
    #[error(
        "gh is not logged in to GitHub (`gh auth status` failed; `gh auth login` logs in, then \
         run this again)"
    )]
    LoggedOut,
}

/// GitHub's command-line client, found on PATH and logged in.
struct Gh {
    exe: PathBuf,
}

/// How long a new fork may take to appear (GitHub forks in the background).
const FORK_WAIT: Duration = Duration::from_secs(60);

impl Gh {
    /// Why not, when gh is not on PATH or not logged in.
    fn find() -> Result<Gh, NoGh> {
        let exe = std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join("gh"))
            .find(|p| is_executable(p))
            .ok_or(NoGh::NotInstalled)?;
        let logged_in = Command::new(&exe)
            .args(["auth", "status"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !logged_in {
            return Err(NoGh::LoggedOut);
        }
        Ok(Gh { exe })
    }

    /// `gh api [--method M] ENDPOINT [--input -]`, the body (JSON) on its standard input.
    fn api(&self, method: &str, endpoint: &str, body: Option<&Value>) -> Result<Value, GhError> {
        let mut args = vec!["api".to_string()];
        if method != "GET" {
            args.extend(["--method".to_string(), method.to_string()]);
        }
        args.push(endpoint.to_string());
        if body.is_some() {
            args.extend(["--input".to_string(), "-".to_string()]);
        }
        let call = args.join(" ");
        let mut child = Command::new(&self.exe)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GhError::Spawn)?;
        let mut stdin = child.stdin.take();
        if let (Some(b), Some(s)) = (body, stdin.as_mut()) {
            // A gh that exits without reading says why on stderr; that is the error reported.
            let _ = s.write_all(b.to_string().as_bytes());
        }
        drop(stdin);
        let out = child.wait_with_output().map_err(GhError::Spawn)?;
        let said = |b: &[u8]| {
            clean(String::from_utf8_lossy(b).trim())
                .chars()
                .take(600)
                .collect()
        };
        if !out.status.success() {
            return Err(GhError::Failed {
                call,
                status: out.status.to_string(),
                said: said(&out.stderr),
            });
        }
        serde_json::from_slice(&out.stdout).map_err(|_| GhError::Answer {
            call,
            what: "JSON",
            said: said(&out.stdout),
        })
    }

    /// Forks when the login cannot push to the repository, makes a branch from the
    /// repository's default branch, adds the files, opens the pull request; its URL.
    fn pull_request(&self, subs: &[Submission], repo: &Repo) -> Result<String, GhError> {
        let text = |v: &Value, ptr: &str, call: &str, what: &'static str| {
            v.pointer(ptr)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| GhError::Answer {
                    call: call.to_string(),
                    what,
                    said: v.to_string().chars().take(600).collect(),
                })
        };
        let upstream = format!("repos/{}", repo.slug());
        let info = self.api("GET", &upstream, None)?;
        let base = text(&info, "/default_branch", &upstream, "default_branch")?;
        let base_ref = format!("{upstream}/git/ref/heads/{base}");
        let sha = text(
            &self.api("GET", &base_ref, None)?,
            "/object/sha",
            &base_ref,
            "object.sha",
        )?;
        let can_push = info.pointer("/permissions/push").and_then(Value::as_bool) == Some(true);
        let (head_repo, head_owner) = if can_push {
            (repo.slug(), None)
        } else {
            let forks = format!("{upstream}/forks");
            let fork = self.api("POST", &forks, Some(&json!({})))?;
            (
                text(&fork, "/full_name", &forks, "full_name")?,
                Some(text(&fork, "/owner/login", &forks, "owner.login")?),
            )
        };
        let first = &subs[0].record.id;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let branch = format!("submit/{first}-{stamp}");
        let refs = format!("repos/{head_repo}/git/refs");
        let new_ref = json!({"ref": format!("refs/heads/{branch}"), "sha": sha});
        // A fork just asked for may not exist yet: try again for a while.
        let began = std::time::Instant::now();
        loop {
            match self.api("POST", &refs, Some(&new_ref)) {
                Ok(_) => break,
                Err(e) if head_owner.is_some() && began.elapsed() < FORK_WAIT => {
                    eprintln!("syscost submit: waiting for the fork {head_repo} ({e})");
                    std::thread::sleep(Duration::from_secs(5));
                }
                Err(e) => return Err(e),
            }
        }
        for s in subs {
            let put = format!("repos/{head_repo}/contents/{}", s.dest);
            let body = json!({
                "message": format!("data: a run of {} {} (syscost submit)",
                    s.record.environment.comparability.kernel_release,
                    s.record.environment.comparability.arch),
                "content": base64::engine::general_purpose::STANDARD.encode(&s.bytes),
                "branch": branch,
            });
            self.api("PUT", &put, Some(&body))?;
        }
        let pulls = format!("{upstream}/pulls");
        let head = match &head_owner {
            Some(owner) => format!("{owner}:{branch}"),
            None => branch.clone(),
        };
        let list: String = subs.iter().map(|s| format!("- `{}`\n", s.dest)).collect();
        let pr = json!({
            "title": if subs.len() == 1 {
                format!("data: a run of {} {}",
                    subs[0].record.environment.comparability.kernel_release,
                    subs[0].record.environment.comparability.arch)
            } else {
                format!("data: {} runs", subs.len())
            },
            "head": head,
            "base": base,
            "body": format!("Submitted with `syscost submit` (the site's check passed before \
                             sending):\n\n{list}"),
            "maintainer_can_modify": true,
        });
        let opened = self.api("POST", &pulls, Some(&pr))?;
        text(&opened, "/html_url", &pulls, "html_url")
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
