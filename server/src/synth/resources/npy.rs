//! NumPy's `.npy` and `.npz` files, for `np.load`. Pure.
//!
//! The `.npy` format (version 1.0, `numpy.lib.format`) is a magic string, a
//! header that is a Python dict literal padded to 64 bytes, and the raw
//! little-endian data: simple and fixed, so written here; `.npz` is a zip of
//! `.npy` members named by key.

use std::fmt::Write as _;

/// Rows and columns of the array: two-dimensional, so that `a[:, 0]`,
/// `a.shape[1]`, `for row in a` and `a.reshape(-1)` all work.
const ROWS: usize = 4;
const COLS: usize = 3;

/// A small 4×3 float64 array (0.0, 0.5, 1.0, ...) as a `.npy` file.
pub fn npy() -> Vec<u8> {
    let data: Vec<f64> = (0..ROWS * COLS).map(|i| i as f64 * 0.5).collect();
    npy_f64(&data, &[ROWS, COLS])
}

/// `data` (row-major) of shape `shape` as a version 1.0 `.npy` file.
pub fn npy_f64(data: &[f64], shape: &[usize]) -> Vec<u8> {
    let mut dims = String::new();
    for d in shape {
        let _ = write!(dims, "{d}, ");
    }
    let dims = if shape.len() == 1 { dims.trim_end().to_string() } else { dims.trim_end_matches(", ").to_string() };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({dims}), }}");
    // Magic (6) + version (2) + length (2) + header, a multiple of 64,
    // the header ending in a newline.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for x in data {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// A `.npz` archive with one array per key (`arr_0` when the fragment
/// names none: what `np.savez(f, a)` calls it).
pub fn npz(keys: &[String]) -> Option<Vec<u8>> {
    let default = ["arr_0".to_string()];
    let keys = if keys.is_empty() { &default[..] } else { keys };
    let members: Vec<(String, Vec<u8>)> = keys.iter().map(|k| (format!("{k}.npy"), npy())).collect();
    super::archive::zip(&members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_a_padded_dict_and_the_data_follows() {
        let f = npy();
        assert_eq!(&f[..8], b"\x93NUMPY\x01\x00");
        let len = u16::from_le_bytes([f[8], f[9]]) as usize;
        assert_eq!((10 + len) % 64, 0);
        let header = std::str::from_utf8(&f[10..10 + len]).unwrap();
        assert!(header.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }"), "{header}");
        assert!(header.ends_with('\n'));
        assert_eq!(f.len(), 10 + len + 4 * 3 * 8);
        assert_eq!(f64::from_le_bytes(f[10 + len + 8..10 + len + 16].try_into().unwrap()), 0.5);
        let one = npy_f64(&[1.0, 2.0], &[2]);
        assert!(String::from_utf8_lossy(&one).contains("'shape': (2,), }"));
    }

    #[test]
    fn an_npz_holds_one_member_per_key() {
        let z = npz(&["x".into(), "y".into()]).unwrap();
        let mut a = zip::ZipArchive::new(std::io::Cursor::new(z)).unwrap();
        let names: Vec<String> = a.file_names().map(|n| n.unwrap().to_string()).collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"x.npy".to_string()) && names.contains(&"y.npy".to_string()));
        let _ = a.by_name("x.npy").unwrap();
        assert!(npz(&[]).is_some());
    }
}
