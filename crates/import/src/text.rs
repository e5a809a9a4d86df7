//! Turns a captured log as it arrives (e-mail quoted, quoted-printable, CRLF, interleaved with
//! kernel messages, flattened onto one line) into plain lines the parsers can read. Each line
//! keeps the number it had in the original file, so errors can point at it.

use std::borrow::Cow;

/// One cleaned line and where it came from (1-based, in the original text). Most lines are a
/// part of the text as it was given (a log may be 32 MiB: its lines are not copied); only
/// decoded and rejoined ones are text of their own.
#[derive(Debug, Clone, PartialEq)]
pub struct Line<'a> {
    pub no: usize,
    pub text: Cow<'a, str>,
}

impl Line<'_> {
    /// Text of its own rather than a part of the log as given.
    pub fn is_decoded(&self) -> bool {
        matches!(self.text, Cow::Owned(_))
    }
}

impl Cleaned<'_> {
    /// The lines, none borrowing the log (copying those that do).
    pub fn into_owned(self) -> Cleaned<'static> {
        Cleaned {
            lines: self
                .lines
                .into_iter()
                .map(|l| Line {
                    no: l.no,
                    text: Cow::Owned(l.text.into_owned()),
                })
                .collect(),
            repairs: self.repairs,
        }
    }
}

/// The cleaned lines, plus what had to be undone (kept as notes on the records).
#[derive(Debug, Clone, Default)]
pub struct Cleaned<'a> {
    pub lines: Vec<Line<'a>>,
    pub repairs: Vec<String>,
}

/// Cleans `raw` in the order the damage was done: line endings, then the transfer encoding
/// (applied last by the mailer, so undone first), then quoting and console noise per line.
pub fn clean(raw: &str) -> Cleaned<'_> {
    let mut repairs = Vec::new();
    // The text is never copied whole (a log may be 32 MiB): lines are split at any line
    // ending and cleaned one by one.
    if raw.contains('\r') {
        repairs.push("CR/CRLF line endings normalised".to_string());
    }
    // Sized once: growing by doubling would briefly hold the lines twice over.
    let mut lines = LineCleaner {
        out: Vec::with_capacity(split_lines(raw).count()),
        ..LineCleaner::default()
    };
    if looks_quoted_printable(raw) {
        repairs.push("quoted-printable encoding decoded".to_string());
        decode_qp_lines(raw, |line| lines.line(line));
    } else {
        for (i, l) in split_lines(raw).enumerate() {
            lines.line(Line {
                no: i + 1,
                text: Cow::Borrowed(l),
            });
        }
    }
    Cleaned {
        lines: lines.finish(&mut repairs),
        repairs,
    }
}

/// The lines of `text`, ended by `\n`, `\r\n` or a lone `\r` (as `str::lines`, which keeps a
/// lone `\r`).
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match t.find(['\n', '\r']) {
            Some(i) => {
                let next = if t[i..].starts_with("\r\n") {
                    i + 2
                } else {
                    i + 1
                };
                rest = (next < t.len()).then(|| &t[next..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                (!t.is_empty()).then_some(t)
            }
        }
    })
}

/// Takes the quoting, kernel messages and KTAP prefixes off logical lines one by one, noting
/// what it found, and rejoins a line the kernel interrupted with its tail.
#[derive(Debug, Default)]
struct LineCleaner<'a> {
    out: Vec<Line<'a>>,
    /// A line cut by a kernel message, waiting for what was written after it.
    pending: Option<Line<'a>>,
    quoted: bool,
    kernel: bool,
    flattened: bool,
    escapes: bool,
}

impl<'a> LineCleaner<'a> {
    fn line(&mut self, line: Line<'a>) {
        let text = match strip_escapes(&line.text) {
            Some(plain) => {
                self.escapes = true;
                Cow::Owned(plain)
            }
            None => line.text,
        };
        match text {
            Cow::Borrowed(t) => {
                let pieces = unflatten(t);
                self.flattened |= pieces.len() > 1;
                for piece in pieces {
                    let (body, cut) = self.body(piece);
                    self.piece(line.no, Cow::Borrowed(body), cut);
                }
            }
            Cow::Owned(t) => {
                let pieces = unflatten(&t);
                self.flattened |= pieces.len() > 1;
                for piece in pieces {
                    let (body, cut) = self.body(piece);
                    self.piece(line.no, Cow::Owned(body.to_string()), cut);
                }
            }
        }
    }

    /// A piece without its quoting, kernel message and KTAP prefix, trimmed, and how a kernel
    /// message cut it.
    fn body<'s>(&mut self, piece: &'s str) -> (&'s str, Cut) {
        let (unquoted, was_quoted) = strip_quotes(piece);
        self.quoted |= was_quoted;
        let (body, cut) = strip_kernel_log(unquoted);
        self.kernel |= cut != Cut::None;
        (strip_ktap(body).trim(), cut)
    }

    fn piece(&mut self, no: usize, body: Cow<'a, str>, cut: Cut) {
        if let Some(mut p) = self.pending.take() {
            if cut == Cut::Whole || body.is_empty() {
                self.pending = Some(p);
                return;
            }
            // A comparison the kernel interrupted: the verdict written after it belongs
            // to it. Anything else is a line of its own.
            if is_verdict_tail(&body) {
                let t = p.text.to_mut();
                t.push(' ');
                t.push_str(&body);
                self.out.push(p);
                return;
            }
            self.out.push(p);
        }
        // Empty lines say nothing to any parser.
        if cut == Cut::Whole || body.is_empty() {
            return;
        }
        let l = Line { no, text: body };
        if cut == Cut::Tail && l.text.ends_with(':') {
            self.pending = Some(l);
        } else {
            self.out.push(l);
        }
    }

    /// The cleaned lines; what was undone goes to `repairs`.
    fn finish(mut self, repairs: &mut Vec<String>) -> Vec<Line<'a>> {
        if let Some(p) = self.pending.take() {
            self.out.push(p);
        }
        if self.escapes {
            repairs.push("terminal escape sequences (colours) removed".to_string());
        }
        if self.quoted {
            repairs.push("e-mail quoting removed".to_string());
        }
        if self.kernel {
            repairs.push("interleaved kernel log lines dropped".to_string());
        }
        if self.flattened {
            repairs.push(
                "a message flattened onto one line was split at its quote markers".to_string(),
            );
        }
        self.out.retain(|l| !l.text.is_empty());
        self.out
    }
}

/// `t` without the terminal's escape sequences, None when it has none. A log captured from a
/// terminal (`script`, a CI console) wraps its lines in colours (`\e[32m … \e[0m`) and may
/// set titles or move the cursor: control sequences (`ESC [` or the 8-bit CSI, parameters,
/// one final byte), strings (`ESC ]`, `ESC P`, `ESC _`, `ESC ^`, `ESC X`, up to BEL or `ESC \`)
/// and two-character escapes are taken out whole, as the terminal would not show them.
fn strip_escapes(t: &str) -> Option<String> {
    if !t.contains(['\u{1b}', '\u{9b}']) {
        return None;
    }
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{9b}' => {}
            '\u{1b}' => match chars.next() {
                Some('[') => {}
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    // A string: up to BEL or ESC \ (or the end of the line).
                    while let Some(s) = chars.next() {
                        if s == '\u{7}' || (s == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                    continue;
                }
                // ESC, intermediate bytes, one final byte: charset selections (`ESC ( B`),
                // keypad modes, RIS.
                Some(' '..='/') => {
                    for s in chars.by_ref() {
                        if ('0'..='~').contains(&s) {
                            break;
                        }
                    }
                    continue;
                }
                _ => continue,
            },
            c => {
                out.push(c);
                continue;
            }
        }
        // A control sequence: parameter and intermediate bytes, then one final byte (@ to ~).
        for s in chars.by_ref() {
            if ('@'..='~').contains(&s) {
                break;
            }
        }
    }
    Some(out)
}

/// What seccomp_benchmark writes after `… (a ≤ b): ` in a second write.
fn is_verdict_tail(s: &str) -> bool {
    s.starts_with('✔') || s.starts_with('❌') || s.contains("Miscalculation!")
}

/// Quoted-printable is decoded only on evidence: the header, or an escape that a mailer must
/// produce and a plain log never contains: `=3D` (for `=`), `=20`/`=09` ending a line (trailing
/// blanks), or an encoded UTF-8 sequence such as `=E2=9C=94`.
fn looks_quoted_printable(text: &str) -> bool {
    // Without a lower-cased copy of the whole text.
    const HEADER: &[u8] = b"content-transfer-encoding: quoted-printable";
    if text
        .as_bytes()
        .windows(HEADER.len())
        .any(|w| w.eq_ignore_ascii_case(HEADER))
    {
        return true;
    }
    let b = text.as_bytes();
    let esc = |i: usize| -> Option<u8> {
        if i + 2 < b.len() && b[i] == b'=' {
            let upper = |c: u8| c.is_ascii_digit() || (b'A'..=b'F').contains(&c);
            if upper(b[i + 1]) && upper(b[i + 2]) {
                return Some(hex(b[i + 1])? * 16 + hex(b[i + 2])?);
            }
        }
        None
    };
    (0..b.len()).any(|i| match esc(i) {
        Some(0x3D) => true,
        Some(0x20 | 0x09) => matches!(b.get(i + 3), None | Some(b'\n' | b'\r')),
        Some(0xC2..=0xF4) => matches!(esc(i + 3), Some(0x80..=0xBF)),
        _ => false,
    })
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Joins soft line breaks (`=` at the end of a line) and decodes `=XX` escapes. A soft break
/// inside quoted text continues on a line that carries the same quote prefix: that prefix is
/// dropped from the continuation.
fn decode_qp_lines<'a>(text: &str, mut out: impl FnMut(Line<'a>)) {
    let mut cur: Option<(usize, Vec<u8>, String)> = None;
    for (i, raw) in split_lines(text).enumerate() {
        let (mut bytes, prefix, start) = match cur.take() {
            Some((no, bytes, prefix)) => {
                let rest = raw.strip_prefix(prefix.as_str()).unwrap_or(raw);
                let mut b = bytes;
                b.extend_from_slice(rest.as_bytes());
                (b, prefix, no)
            }
            None => (raw.as_bytes().to_vec(), quote_prefix(raw), i + 1),
        };
        let soft = bytes.last() == Some(&b'=');
        if soft {
            bytes.pop();
            cur = Some((start, bytes, prefix));
        } else {
            out(Line {
                no: start,
                text: Cow::Owned(String::from_utf8_lossy(&qp_unescape(&bytes)).into_owned()),
            });
        }
    }
    if let Some((no, bytes, _)) = cur {
        out(Line {
            no,
            text: Cow::Owned(String::from_utf8_lossy(&qp_unescape(&bytes)).into_owned()),
        });
    }
}

fn qp_unescape(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// The leading `>` markers (and the blanks around them) of a line.
fn quote_prefix(line: &str) -> String {
    let (rest, quoted) = strip_quotes(line);
    if quoted {
        line[..line.len() - rest.len()].to_string()
    } else {
        String::new()
    }
}

/// Removes any depth of e-mail quoting: `> `, `>> `, `> > `, `>`.
fn strip_quotes(line: &str) -> (&str, bool) {
    let mut s = line;
    let mut quoted = false;
    loop {
        let t = s.trim_start_matches([' ', '\t']);
        match t.strip_prefix('>') {
            Some(rest) => {
                quoted = true;
                s = rest;
            }
            None => return (if quoted { t } else { s }, quoted),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// No kernel log timestamp on the line.
    None,
    /// The whole line is a kernel message.
    Whole,
    /// A kernel message interrupted the line; the part before it is kept.
    Tail,
}

/// Kernel console lines start with `[  263.908829]` (optionally followed by a caller id such
/// as `[   C15]` or `[ T1234]`). At the start of a line they are dropped whole; in the middle,
/// the kernel interrupted a user-space line and only the part before the stamp is kept.
fn strip_kernel_log(line: &str) -> (&str, Cut) {
    let t = line.trim_start();
    if kernel_stamp_len(t).is_some() {
        return ("", Cut::Whole);
    }
    let mut from = 0;
    while let Some(pos) = line[from..].find('[') {
        let at = from + pos;
        if kernel_stamp_len(&line[at..]).is_some() {
            return (&line[..at], Cut::Tail);
        }
        from = at + 1;
    }
    (line, Cut::None)
}

/// Length of a `[ seconds.micros]` stamp at the start of `s`, if there is one.
fn kernel_stamp_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('[')?;
    let inner_end = rest.find(']')?;
    let inner = rest[..inner_end].trim_start();
    let (secs, frac) = inner.split_once('.')?;
    let ok = !secs.is_empty()
        && secs.bytes().all(|c| c.is_ascii_digit())
        && frac.len() >= 3
        && frac.bytes().all(|c| c.is_ascii_digit());
    ok.then_some(inner_end + 2)
}

/// KTAP diagnostic prefixes: `# ` from the test, another `# ` from the kselftest runner.
fn strip_ktap(line: &str) -> &str {
    let mut s = line.trim_start();
    loop {
        match s.strip_prefix('#') {
            Some(rest) if rest.is_empty() => return rest,
            Some(rest) if rest.starts_with([' ', '\t']) => s = rest[1..].trim_start_matches(' '),
            _ => return s,
        }
    }
}

/// A whole mail flattened onto one line (a mail archive's "raw" view pasted as one paragraph)
/// still has its quote markers: split at ` > ` when a long line has several of them.
fn unflatten(line: &str) -> Vec<&str> {
    if line.len() < 300 || line.matches(" > ").count() < 3 {
        return vec![line];
    }
    line.split(" > ").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'c>(c: &'c Cleaned) -> Vec<&'c str> {
        c.lines.iter().map(|l| l.text.as_ref()).collect()
    }

    #[test]
    fn quotes_of_any_depth_are_removed() {
        let c = clean("> a\n>> b\n> > c\n>d\n  > # # e\nplain\n");
        assert_eq!(texts(&c), ["a", "b", "c", "d", "e", "plain"]);
        assert!(c.repairs.iter().any(|r| r.contains("quoting")));
    }

    #[test]
    fn terminal_escapes_are_taken_out_whole() {
        // Issue 42: a log captured from a terminal, colours around each line, gave 0
        // scenarios.
        let c = clean(
            "\u{1b}[32m# # getpid native: 302 ns\u{1b}[0m\n\u{1b}[1;31mred\u{1b}[m\u{1b}]0;title\u{7}x\n\
             \u{1b}]8;;http://a\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}(Bok\u{9b}2Kz\n",
        );
        assert_eq!(texts(&c), ["getpid native: 302 ns", "redx", "link okz"]);
        assert!(c.repairs.iter().any(|r| r.contains("terminal escape")));
        assert!(clean("plain\n").repairs.is_empty());
    }

    #[test]
    fn crlf_and_lone_cr_become_lines() {
        let c = clean("a\r\nb\rc\n");
        assert_eq!(texts(&c), ["a", "b", "c"]);
        assert_eq!(c.lines[2].no, 3);
    }

    #[test]
    fn ktap_prefixes_are_removed_but_not_inner_hashes() {
        let c = clean("# # getpid native: 5 ns\n# ok 1 x\n# # Linux h 6.8 #1 SMP x86_64\n#\n");
        assert_eq!(
            texts(&c),
            ["getpid native: 5 ns", "ok 1 x", "Linux h 6.8 #1 SMP x86_64"]
        );
    }

    #[test]
    fn kernel_lines_are_dropped_and_numbers_kept() {
        let c = clean("one\n[  263.908829][   C15] sched: RT throttling\n[ 1.000000] x\ntwo\n");
        assert_eq!(texts(&c), ["one", "two"]);
        assert_eq!(c.lines[1].no, 4);
    }

    #[test]
    fn interrupted_compare_line_is_rejoined_with_its_mark() {
        let c = clean(
            "# # \tnative ≤ 1 bitmap (5 ≤ 6): [  263.908829][   C15] sched: x\n\
             [  263.908900] more\n✔️\nnext\n",
        );
        assert_eq!(texts(&c), ["native ≤ 1 bitmap (5 ≤ 6): ✔️", "next"]);
    }

    #[test]
    fn interrupted_line_without_its_mark_stays_apart() {
        let c = clean("native ≤ 1 bitmap (5 ≤ 6): [  263.908829] x\n# ok 1 native ≤ 1 bitmap\n");
        assert_eq!(
            texts(&c),
            ["native ≤ 1 bitmap (5 ≤ 6):", "ok 1 native ≤ 1 bitmap"]
        );
    }

    #[test]
    fn quoted_printable_is_decoded_with_soft_breaks_inside_quotes() {
        let raw = "Content-Transfer-Encoding: quoted-printable\n\n\
                   > # # getpid RET_ALLOW 1 filter (bit=\n> map): 675 ns\n\
                   > # # \tnative =E2=89=A4 1 bitmap (646 =E2=89=A4 675): =E2=9C=94=EF=B8=8F\n\
                   a =3D b\n";
        let c = clean(raw);
        assert_eq!(
            texts(&c)[1..],
            [
                "getpid RET_ALLOW 1 filter (bitmap): 675 ns",
                "native ≤ 1 bitmap (646 ≤ 675): ✔️",
                "a = b"
            ]
        );
        assert_eq!(c.lines[1].no, 3);
    }

    #[test]
    fn plain_equals_signs_do_not_trigger_qp() {
        let raw = "129.359381409 - 0.008724424 = 129350656985 (129.4s)\nnet.core.bpf_jit_enable = 1\nx=\ny\n";
        let c = clean(raw);
        assert_eq!(c.lines.len(), 4);
        assert!(c.repairs.is_empty());
    }

    #[test]
    fn flattened_mail_is_split_at_quote_markers() {
        let filler = "word ".repeat(70);
        let raw = format!("{filler} wrote: > Avg syscall time 134ns. > Caught sys_ff00 > Avg syscall time 147ns. > > Interception overhead: 9.7% (+13ns). > > bye");
        let c = clean(&raw);
        let t = texts(&c);
        assert!(t.contains(&"Avg syscall time 134ns."), "{t:?}");
        assert!(t.contains(&"Interception overhead: 9.7% (+13ns)."), "{t:?}");
        assert!(c.lines.iter().all(|l| l.no == 1));
    }
}
