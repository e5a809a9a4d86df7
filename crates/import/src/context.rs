//! What a log shows around a run rather than in it: the shell prompt the benchmark was started
//! from (its host name, kept only as a hash, and the command) and the author's heading for the
//! run ("same system booted with pti:", "With cache:", "before-opt"). Both are read from the
//! lines before the run's first line, verbatim; nothing is interpreted.

use crate::text::Line;

/// A shell prompt with what was typed after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub host: Option<String>,
    pub command: String,
}

/// `user@host:~# cmd`, `[user@host dir]$ cmd`, `user@host$ cmd`; `$ cmd` (no host).
pub fn prompt(t: &str) -> Option<Prompt> {
    let word = |s: &str| {
        !s.is_empty()
            && s.len() <= 64
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if let Some(cmd) = t.strip_prefix("$ ") {
        return (!cmd.trim().is_empty()).then(|| Prompt {
            host: None,
            command: cmd.trim().to_string(),
        });
    }
    let (head, cmd) = if let Some(rest) = t.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let cmd = after
            .strip_prefix("# ")
            .or_else(|| after.strip_prefix("$ "))?;
        (inside.split_whitespace().next()?, cmd)
    } else {
        let end = t.find(['#', '$'])?;
        let cmd = t[end + 1..].strip_prefix(' ')?;
        let head = &t[..end];
        let head = head.split_once(':').map_or(head, |(h, _)| h);
        (head, cmd)
    };
    let (user, host) = head.split_once('@')?;
    (word(user) && word(host) && !cmd.trim().is_empty()).then(|| Prompt {
        host: Some(host.to_string()),
        command: cmd.trim().to_string(),
    })
}

/// A line that introduces what follows: it ends with a colon, or the next line underlines it
/// with dashes or equals signs.
fn heading<'l>(lines: &'l [Line], i: usize) -> Option<&'l str> {
    let t = lines[i].text.trim();
    let underline =
        |s: &str| s.len() >= 3 && (s.bytes().all(|c| c == b'-') || s.bytes().all(|c| c == b'='));
    if t.is_empty() || underline(t) {
        return None;
    }
    let underlined = lines.get(i + 1).is_some_and(|n| underline(n.text.trim()));
    (t.ends_with(':') || underlined).then_some(t)
}

/// What the log shows before a run: the last prompt before it, and the last heading after that
/// prompt that is not inside any run (`runs`: line ranges of every run found in the file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Before {
    pub prompt: Option<Prompt>,
    pub heading: Option<String>,
}

#[cfg(test)]
pub fn before(lines: &[Line], first_line: usize, runs: &[(usize, usize)]) -> Before {
    let mut spans = runs.to_vec();
    spans.sort_unstable();
    before_all(lines, &[first_line], &spans)
        .pop()
        .unwrap_or_default()
}

/// [`before`] for every run at once, in one pass over the lines (a log may hold a thousand
/// runs among half a million lines): `firsts` are the runs' first lines in increasing order,
/// `spans` every run's line range sorted by start.
pub fn before_all(lines: &[Line], firsts: &[usize], spans: &[(usize, usize)]) -> Vec<Before> {
    let mut out = Vec::with_capacity(firsts.len());
    let mut state = Before::default();
    let mut next_span = 0;
    // The furthest end of the spans that start at or before the current line: the line is
    // inside a run exactly when it is not past that end.
    let mut reach = 0;
    for (i, l) in lines.iter().enumerate() {
        while out.len() < firsts.len() && firsts[out.len()] <= l.no {
            out.push(state.clone());
        }
        if out.len() == firsts.len() {
            break;
        }
        while next_span < spans.len() && spans[next_span].0 <= l.no {
            reach = reach.max(spans[next_span].1);
            next_span += 1;
        }
        if next_span > 0 && l.no <= reach {
            continue;
        }
        if let Some(p) = prompt(&l.text) {
            state.prompt = Some(p);
            state.heading = None;
        } else if let Some(h) = heading(lines, i) {
            state.heading = Some(h.to_string());
        }
    }
    while out.len() < firsts.len() {
        out.push(state.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_of_common_shells() {
        assert_eq!(
            prompt("root@olga:~# syscall_user_dispatch/sud_benchmark"),
            Some(Prompt {
                host: Some("olga".into()),
                command: "syscall_user_dispatch/sud_benchmark".into()
            })
        );
        assert_eq!(
            prompt("[loongson@linux perf]$ ./perf bench syscall all").and_then(|p| p.host),
            Some("linux".into())
        );
        assert_eq!(
            prompt("$ sudo ./seccomp_benchmark 30344920"),
            Some(Prompt {
                host: None,
                command: "sudo ./seccomp_benchmark 30344920".into()
            })
        );
        assert_eq!(prompt("net.core.bpf_jit_enable = 1"), None);
        assert_eq!(prompt("Mail me at a@b.c # not a prompt"), None);
    }

    #[test]
    fn the_heading_is_the_last_one_after_the_last_prompt_outside_runs() {
        let lines: Vec<Line> = [
            "Output before:",
            "perf bench syscall fork",
            "# Running 'syscall/fork' benchmark:",
            "Output after:",
            "before-opt",
            "----------",
            "x",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Line {
            no: i + 1,
            text: (*t).into(),
        })
        .collect();
        let b = before(&lines, 7, &[(3, 3)]);
        assert_eq!(b.heading.as_deref(), Some("before-opt"));
        let b = before(&lines, 3, &[(3, 3)]);
        assert_eq!(b.heading.as_deref(), Some("Output before:"));
    }
}
