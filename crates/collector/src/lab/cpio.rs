//! The initramfs archive: cpio "newc", uncompressed (every kernel with CONFIG_BLK_DEV_INITRD
//! unpacks it, whatever decompressors it was built with). Entries are written in order with
//! mtime 0 and owner root, so the same inputs give the same archive.

use std::io::{self, Write};

const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
const S_IFCHR: u32 = 0o020000;

pub struct Writer<W: Write> {
    out: W,
    ino: u32,
    written: u64,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer {
            out,
            ino: 1,
            written: 0,
        }
    }

    fn pad(&mut self) -> io::Result<()> {
        let n = (4 - (self.written % 4) as usize) % 4;
        self.put(&[0u8; 3][..n])
    }

    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        Ok(())
    }

    fn entry(&mut self, name: &str, mode: u32, rdev: (u32, u32), data: &[u8]) -> io::Result<()> {
        let name = name.trim_start_matches('/');
        let size = u32::try_from(data.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file over 4 GiB"))?;
        let nlink = if mode & S_IFDIR != 0 { 2 } else { 1 };
        let fields = [
            self.ino,
            mode,
            0,
            0,
            nlink,
            0,
            size,
            0,
            0,
            rdev.0,
            rdev.1,
            name.len() as u32 + 1,
            0,
        ];
        self.ino += 1;
        let mut header = String::from("070701");
        for f in fields {
            header.push_str(&format!("{f:08x}"));
        }
        self.put(header.as_bytes())?;
        self.put(name.as_bytes())?;
        self.put(&[0])?;
        self.pad()?;
        self.put(data)?;
        self.pad()
    }

    pub fn dir(&mut self, name: &str) -> io::Result<()> {
        self.entry(name, S_IFDIR | 0o755, (0, 0), &[])
    }

    pub fn file(&mut self, name: &str, perm: u32, data: &[u8]) -> io::Result<()> {
        self.entry(name, S_IFREG | (perm & 0o7777), (0, 0), data)
    }

    pub fn symlink(&mut self, name: &str, target: &str) -> io::Result<()> {
        self.entry(name, S_IFLNK | 0o777, (0, 0), target.as_bytes())
    }

    pub fn char_device(&mut self, name: &str, major: u32, minor: u32) -> io::Result<()> {
        self.entry(name, S_IFCHR | 0o600, (major, minor), &[])
    }

    /// Writes the trailer and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.entry("TRAILER!!!", 0, (0, 0), &[])?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a newc archive back: (name, mode, data) per entry.
    fn entries(mut b: &[u8]) -> Vec<(String, u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut consumed = 0usize;
        loop {
            assert_eq!(&b[..6], b"070701");
            let field = |i: usize| {
                u32::from_str_radix(std::str::from_utf8(&b[6 + i * 8..14 + i * 8]).unwrap(), 16)
                    .unwrap()
            };
            let (mode, size, namesize) = (field(1), field(6) as usize, field(11) as usize);
            let name = String::from_utf8(b[110..110 + namesize - 1].to_vec()).unwrap();
            let head = (110 + namesize + 3) & !3;
            let data = b[head..head + size].to_vec();
            let next = (head + size + 3) & !3;
            consumed += next;
            assert_eq!(consumed % 4, 0);
            b = &b[next..];
            if name == "TRAILER!!!" {
                assert!(b.is_empty());
                return out;
            }
            out.push((name, mode, data));
        }
    }

    #[test]
    fn archives_read_back_and_are_reproducible() {
        let build = || {
            let mut w = Writer::new(Vec::new());
            w.dir("/bin").unwrap();
            w.file("/bin/x", 0o755, b"hello").unwrap();
            w.symlink("/bin/sh", "busybox").unwrap();
            w.char_device("/dev/console", 5, 1).unwrap();
            w.finish().unwrap()
        };
        let a = build();
        assert_eq!(a, build());
        let e = entries(&a);
        let names: Vec<&str> = e.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["bin", "bin/x", "bin/sh", "dev/console"]);
        assert_eq!(e[1].1, S_IFREG | 0o755);
        assert_eq!(e[1].2, b"hello");
        assert_eq!(e[2].2, b"busybox");
        assert_eq!(e[3].1 & S_IFCHR, S_IFCHR);
    }
}
