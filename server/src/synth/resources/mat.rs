//! MATLAB's `.mat` files (Level 5), for `scipy.io.loadmat`. Pure.
//!
//! The format (MathWorks, "MAT-File Format", Level 5) is a 128-byte header
//! (descriptive text, a subsystem offset, version 0x0100, the endian mark
//! `IM`) and data elements, each an 8-byte tag (type, byte count) and its
//! data padded to 8 bytes. A variable is one `miMATRIX` element holding its
//! array flags, dimensions, name and real part: simple and fixed, so
//! written here, like `.npy`.

/// Data types of the format's tags.
const MI_INT8: u32 = 1;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_DOUBLE: u32 = 9;
const MI_MATRIX: u32 = 14;
/// The array class of a double-precision matrix.
const MX_DOUBLE_CLASS: u32 = 6;

/// Rows and columns of each variable: two-dimensional, as MATLAB's
/// arrays always are, so `x[0][0]`, `x.shape` and `x[:, 1]` all work.
const ROWS: usize = 3;
const COLS: usize = 2;

/// A `.mat` file with one 3×2 double matrix per name the fragment reads of
/// what `loadmat` returns (`data` when it names none). Names MATLAB cannot
/// hold (not an identifier) are left out.
pub fn mat(names: &[String]) -> Vec<u8> {
    let mut names: Vec<&str> = names.iter().map(String::as_str).filter(|n| is_matlab_name(n)).collect();
    if names.is_empty() {
        names.push("data");
    }
    let mut out = header();
    for (i, name) in names.iter().enumerate() {
        let values: Vec<f64> = (0..ROWS * COLS).map(|k| (i * 10 + k) as f64 + 0.5).collect();
        out.extend(matrix(name, &values));
    }
    out
}

fn header() -> Vec<u8> {
    let mut text = b"MATLAB 5.0 MAT-file, written by runnable".to_vec();
    text.resize(116, b' ');
    text.extend([0u8; 8]);
    text.extend(0x0100u16.to_le_bytes());
    text.extend(b"IM");
    text
}

/// One `miMATRIX` element: flags, dimensions, name, real part (column-major).
fn matrix(name: &str, values: &[f64]) -> Vec<u8> {
    let mut body = Vec::new();
    element(&mut body, MI_UINT32, &[MX_DOUBLE_CLASS.to_le_bytes(), 0u32.to_le_bytes()].concat());
    element(&mut body, MI_INT32, &[(ROWS as i32).to_le_bytes(), (COLS as i32).to_le_bytes()].concat());
    element(&mut body, MI_INT8, name.as_bytes());
    element(&mut body, MI_DOUBLE, &values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
    let mut out = Vec::new();
    element(&mut out, MI_MATRIX, &body);
    out
}

/// A tag and its data, padded to a multiple of 8 bytes.
fn element(out: &mut Vec<u8>, kind: u32, data: &[u8]) {
    out.extend(kind.to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out.extend(data);
    out.resize(out.len().div_ceil(8) * 8, 0);
}

/// MATLAB variable names: a letter, then letters, digits and underscores.
fn is_matlab_name(n: &str) -> bool {
    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && n.len() <= 63
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_128_bytes_and_each_variable_a_padded_matrix() {
        let f = mat(&["mystruct".into(), "1a".into()]);
        assert!(f.starts_with(b"MATLAB 5.0 MAT-file"));
        assert_eq!(&f[124..128], &[0x00, 0x01, b'I', b'M']);
        // One matrix ("1a" is no MATLAB name): its tag, then flags, dims, name, data.
        assert_eq!(u32::from_le_bytes(f[128..132].try_into().unwrap()), MI_MATRIX);
        let size = u32::from_le_bytes(f[132..136].try_into().unwrap()) as usize;
        assert_eq!(f.len(), 136 + size);
        assert_eq!(size, 16 + 16 + 16 + (8 + ROWS * COLS * 8));
        assert_eq!(&f[136 + 32 + 8..136 + 32 + 16], b"mystruct");
        assert!(mat(&[]).windows(4).any(|w| w == b"data"));
    }
}
