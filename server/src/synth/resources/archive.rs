//! Archives and compressed files (`.zip`, `.tar`, `.tar.gz`, `.gz`),
//! written by the `zip`, `tar` and `flate2` crates. Pure (in memory).
//!
//! Every output is a function of its members only (fixed timestamps and
//! modes), so the same prefix gives the same bytes and the search's
//! de-duplication still recognises it.

use std::io::{Cursor, Write};

/// A zip archive holding `members` (name, content), deflated.
pub fn zip(members: &[(String, Vec<u8>)]) -> Option<Vec<u8>> {
    let mut w = ::zip::ZipWriter::new(Cursor::new(Vec::new()));
    // Without the crate's `time` feature the default timestamp is fixed
    // (1980-01-01), never the clock.
    let opts = ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Deflated).unix_permissions(0o644);
    for (name, data) in members {
        w.start_file(name.as_str(), opts).ok()?;
        w.write_all(data).ok()?;
    }
    Some(w.finish().ok()?.into_inner())
}

/// A tar archive holding `members`, gzip-compressed when `gz`.
pub fn tar(members: &[(String, Vec<u8>)], gz: bool) -> Option<Vec<u8>> {
    let mut b = ::tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = ::tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(::tar::EntryType::Regular);
        b.append_data(&mut h, name, data.as_slice()).ok()?;
    }
    let raw = b.into_inner().ok()?;
    if gz {
        gzip(&raw)
    } else {
        Some(raw)
    }
}

/// `data` gzip-compressed (no file name, mtime 0).
pub fn gzip(data: &[u8]) -> Option<Vec<u8>> {
    let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
    e.write_all(data).ok()?;
    e.finish().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn members() -> Vec<(String, Vec<u8>)> {
        vec![("a.txt".into(), b"first line\n".to_vec()), ("d/b.csv".into(), b"id,name\n1,x\n".to_vec())]
    }

    #[test]
    fn a_zip_reads_back_its_members() {
        let z = zip(&members()).unwrap();
        assert_eq!(z, zip(&members()).unwrap(), "the same members, the same bytes");
        let mut a = ::zip::ZipArchive::new(Cursor::new(z)).unwrap();
        let mut s = String::new();
        a.by_name("d/b.csv").unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "id,name\n1,x\n");
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn a_tar_reads_back_plain_and_gzipped() {
        for gz in [false, true] {
            let t = tar(&members(), gz).unwrap();
            let names: Vec<String> = if gz {
                ::tar::Archive::new(flate2::read::GzDecoder::new(t.as_slice())).entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect()
            } else {
                ::tar::Archive::new(t.as_slice()).entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect()
            };
            assert_eq!(names, vec!["a.txt", "d/b.csv"], "gz={gz}");
        }
    }

    #[test]
    fn gzip_round_trips() {
        let g = gzip(b"hello\n").unwrap();
        assert_eq!(&g[..2], &[0x1f, 0x8b]);
        let mut s = String::new();
        flate2::read::GzDecoder::new(g.as_slice()).read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello\n");
    }
}
