//! Finding a kernel function's type id in the kernel's BTF (/sys/kernel/btf/vmlinux): all a
//! BPF trampoline program (fentry, fexit, fmod_ret) needs to name its target at load time.
//!
//! Hand-written: the format is a header, then fixed-size type records each followed by a
//! kind-dependent tail (include/uapi/linux/btf.h), and only FUNC records are wanted.

pub const VMLINUX: &str = "/sys/kernel/btf/vmlinux";

const MAGIC: u16 = 0xeb9f;
const HEADER_LEN: usize = 24;
const KIND_FUNC: u32 = 12;

/// Why the BTF could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BtfError {
    #[error("not BTF: {0}")]
    Format(&'static str),
    #[error("type {id} has unknown kind {kind}")]
    UnknownKind { id: u32, kind: u32 },
    #[error("truncated at type {0}")]
    Truncated(u32),
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Bytes that follow a type record of `kind` with `vlen` members.
fn tail_len(kind: u32, vlen: usize) -> Option<usize> {
    Some(match kind {
        // INT: one u32 of encoding; VAR: linkage; DECL_TAG: component index.
        1 | 14 | 17 => 4,
        // PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT, TYPE_TAG.
        2 | 7..=12 | 16 | 18 => 0,
        // ARRAY: element type, index type, count.
        3 => 12,
        // STRUCT, UNION (name, type, offset), DATASEC (type, offset, size), ENUM64.
        4 | 5 | 15 | 19 => 12 * vlen,
        // ENUM (name, value), FUNC_PROTO (name, type).
        6 | 13 => 8 * vlen,
        _ => return None,
    })
}

/// The id of the FUNC named `name` in the BTF blob `btf`, or `None` when it has none.
pub fn find_func(btf: &[u8], name: &str) -> Result<Option<u32>, BtfError> {
    if u16_at(btf, 0) != Some(MAGIC) {
        return Err(BtfError::Format("bad magic"));
    }
    let field = |at| u32_at(btf, at).ok_or(BtfError::Format("short header"));
    let hdr_len = field(4)? as usize;
    let (type_off, type_len) = (field(8)? as usize, field(12)? as usize);
    let (str_off, str_len) = (field(16)? as usize, field(20)? as usize);
    if hdr_len < HEADER_LEN {
        return Err(BtfError::Format("short header"));
    }
    let section = |off: usize, len: usize| {
        let start = hdr_len.checked_add(off)?;
        btf.get(start..start.checked_add(len)?)
    };
    let types = section(type_off, type_len).ok_or(BtfError::Format("types out of bounds"))?;
    let strings = section(str_off, str_len).ok_or(BtfError::Format("strings out of bounds"))?;
    let name_is = |off: u32| {
        strings
            .get(off as usize..)
            .and_then(|s| s.split(|&c| c == 0).next())
            .is_some_and(|s| s == name.as_bytes())
    };
    let (mut at, mut id) = (0usize, 1u32);
    while at < types.len() {
        let (name_off, info) = match (u32_at(types, at), u32_at(types, at + 4)) {
            (Some(n), Some(i)) => (n, i),
            _ => return Err(BtfError::Truncated(id)),
        };
        let kind = (info >> 24) & 0x1f;
        let vlen = (info & 0xffff) as usize;
        if kind == KIND_FUNC && name_is(name_off) {
            return Ok(Some(id));
        }
        let tail = tail_len(kind, vlen).ok_or(BtfError::UnknownKind { id, kind })?;
        at += 12 + tail;
        if at > types.len() {
            return Err(BtfError::Truncated(id));
        }
        id += 1;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BTF blob of `types` (kind, vlen, name, tail bytes) with their names.
    fn blob(types: &[(u32, u32, &str, usize)]) -> Vec<u8> {
        let mut strings = vec![0u8];
        let mut t = Vec::new();
        for &(kind, vlen, name, tail) in types {
            let off = strings.len() as u32;
            strings.extend(name.as_bytes());
            strings.push(0);
            t.extend(off.to_ne_bytes());
            t.extend(((kind << 24) | vlen).to_ne_bytes());
            t.extend(0u32.to_ne_bytes());
            t.extend(vec![0u8; tail]);
        }
        let mut b = Vec::new();
        b.extend(MAGIC.to_ne_bytes());
        b.extend([1u8, 0]);
        for v in [
            24u32,
            0,
            t.len() as u32,
            t.len() as u32,
            strings.len() as u32,
        ] {
            b.extend(v.to_ne_bytes());
        }
        b.extend(t);
        b.extend(strings);
        b
    }

    #[test]
    fn finds_a_function_past_every_kind_of_record() {
        let b = blob(&[
            (1, 0, "int", 4),
            (4, 2, "task_struct", 24),
            (13, 3, "", 24),
            (6, 2, "state", 16),
            (12, 0, "__x64_sys_getpgid", 0),
            (12, 0, "__x64_sys_getpid", 0),
        ]);
        assert_eq!(find_func(&b, "__x64_sys_getpid"), Ok(Some(6)));
        assert_eq!(find_func(&b, "__x64_sys_getpgid"), Ok(Some(5)));
        // A struct of that name is not a function; a prefix is not the name.
        assert_eq!(find_func(&b, "task_struct"), Ok(None));
        assert_eq!(find_func(&b, "__x64_sys_getp"), Ok(None));
    }

    #[test]
    fn broken_blobs_are_errors() {
        assert_eq!(find_func(b"junk", "f"), Err(BtfError::Format("bad magic")));
        let mut b = blob(&[(1, 0, "int", 4), (12, 0, "f", 0)]);
        // A tail longer than the section: the last record is cut.
        b[24 + 4..24 + 8].copy_from_slice(&((4u32 << 24) | 9).to_ne_bytes());
        assert_eq!(find_func(&b, "f"), Err(BtfError::Truncated(1)));
        let unknown = blob(&[(30, 0, "x", 0)]);
        assert_eq!(
            find_func(&unknown, "f"),
            Err(BtfError::UnknownKind { id: 1, kind: 30 })
        );
    }

    #[test]
    #[ignore = "needs a kernel with BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)"]
    fn the_running_kernel_has_its_getpid() {
        let b = std::fs::read(VMLINUX).expect("read /sys/kernel/btf/vmlinux");
        let found: Vec<_> = ["__x64_sys_getpid", "__arm64_sys_getpid", "__do_sys_getpid"]
            .iter()
            .filter_map(|f| find_func(&b, f).unwrap())
            .collect();
        assert!(!found.is_empty(), "no getpid function in the kernel's BTF");
        assert!(found.iter().all(|&id| id > 1));
    }
}
