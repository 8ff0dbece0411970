//! Content for the files a fragment reads, chosen by how it reads them. Pure.

use crate::exec::Resource;

/// Files for a directory the fragment lists or walks: one per extension its
/// glob patterns name (`*.c`), also one level down for recursive walks.
pub fn directory_for(path: &str, patterns: &[String]) -> Vec<Resource> {
    let clean = path.trim_start_matches("./").trim_end_matches('/');
    if clean.starts_with('/') || clean.split('/').any(|p| p == "..") || clean.contains('~') || clean.contains('*') {
        return Vec::new();
    }
    let dir = if clean.is_empty() || clean == "." { String::new() } else { format!("{clean}/") };
    let mut exts: Vec<String> = patterns
        .iter()
        .filter_map(|p| p.strip_prefix("*.").map(str::to_string))
        .filter(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    if exts.is_empty() {
        exts.push("txt".into());
    }
    let mut out = Vec::new();
    for ext in exts {
        for sub in ["", "nested/"] {
            let name = format!("{dir}{sub}example.{ext}");
            let content = resource_for(&name, "open").map(|r| r.content).unwrap_or_default();
            out.push(Resource { path: name, content });
        }
    }
    out
}

/// What to create for a relative path a fragment names: a directory (with
/// files matching `patterns`) when its last part has no extension, else a
/// file to be opened.
pub fn files_at(path: &str, patterns: &[String]) -> Vec<Resource> {
    if path.rsplit('/').next().unwrap_or("").contains('.') {
        resource_for(path, "open").into_iter().collect()
    } else {
        directory_for(path, patterns)
    }
}

/// A file at `path` suited to being read with `how` (`open`, `read_csv`, `imread`, ...).
pub fn resource_for(path: &str, how: &str) -> Option<Resource> {
    let clean = path.trim_start_matches("./");
    if clean.is_empty() || clean.starts_with('/') || clean.split('/').any(|p| p == "..") || clean.contains('~') {
        return None;
    }
    let ext = clean.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let content: Vec<u8> = match (how, ext.as_str()) {
        ("listdir" | "walk" | "scandir" | "glob", _) if ext.is_empty() => {
            return Some(Resource { path: format!("{clean}/example.txt"), content: b"first line\nsecond line\n".to_vec() })
        }
        (_, "csv") => b"id,name,value\n1,apple,3.5\n2,banana,1.25\n3,cherry,7.0\n".to_vec(),
        (_, "tsv") => b"id\tname\tvalue\n1\tapple\t3.5\n2\tbanana\t1.25\n3\tcherry\t7.0\n".to_vec(),
        (_, "json") => b"{\"name\": \"Ada\", \"id\": 1, \"items\": [1, 2, 3], \"data\": {\"key\": \"value\"}}\n".to_vec(),
        (_, "yaml" | "yml") => b"name: Ada\nid: 1\nitems:\n  - 1\n  - 2\n".to_vec(),
        (_, "xml") => b"<?xml version=\"1.0\"?>\n<root>\n  <item id=\"1\">apple</item>\n  <item id=\"2\">banana</item>\n</root>\n".to_vec(),
        (_, "html" | "htm") => b"<html><head><title>Example</title></head><body><p class=\"intro\">Hello</p><a href=\"/a\">A</a></body></html>\n".to_vec(),
        (_, "png" | "jpg" | "jpeg" | "gif" | "bmp" | "tif" | "tiff") => image_file(&ext)?,
        (_, "py") => b"# Module created so that the import works.\n".to_vec(),
        (_, "toml") => b"name = \"Ada\"\nid = 1\nitems = [1, 2, 3]\n\n[data]\nkey = \"value\"\n".to_vec(),
        (_, "ini" | "cfg" | "conf") => b"[DEFAULT]\nname = Ada\n\n[section]\nkey = value\n".to_vec(),
        (_, "npy" | "pkl" | "pickle" | "parquet" | "xlsx" | "xls" | "h5" | "db" | "sqlite" | "sqlite3" | "zip" | "gz") => return None,
        _ => b"first line\nsecond line\nthird line\n".to_vec(),
    };
    Some(Resource { path: clean.to_string(), content })
}

/// A small RGB image in the format its extension names (a `.jpg` that is
/// a PNG inside fails in any reader that checks, and misleads one that does
/// not), written by the `image` crate's encoders.
pub fn image_file(ext: &str) -> Option<Vec<u8>> {
    let format = image::ImageFormat::from_extension(ext)?;
    let img = image::RgbImage::from_fn(4, 4, |x, y| image::Rgb([(x * 60) as u8, (y * 60) as u8, 128]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, format).ok()?;
    Some(out.into_inner())
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_follows_the_extension_and_paths_stay_inside() {
        assert!(resource_for("data.csv", "read_csv").unwrap().content.starts_with(b"id,name,value\n"));
        assert!(resource_for("/etc/passwd", "open").is_none());
        assert!(resource_for("../x.txt", "open").is_none());
        assert_eq!(resource_for("images", "listdir").unwrap().path, "images/example.txt");
        let d = directory_for("src", &["*.c".to_string()]);
        assert_eq!(d.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(), vec!["src/example.c", "src/nested/example.c"]);
        assert!(directory_for("/etc", &[]).is_empty());
        assert_eq!(&resource_for("a.png", "imread").unwrap().content[..4], b"\x89PNG");
        let png = image::load_from_memory(&resource_for("a.png", "imread").unwrap().content).unwrap().to_rgb8();
        assert_eq!(&png.as_raw()[..6], &[0, 0, 128, 60, 0, 128], "a gradient: readers see more than one colour");
        // Each image in the format its name says, as the decoders read it.
        for (name, format) in [("a.jpg", image::ImageFormat::Jpeg), ("b.JPEG", image::ImageFormat::Jpeg), ("c.gif", image::ImageFormat::Gif), ("d.bmp", image::ImageFormat::Bmp), ("e.tif", image::ImageFormat::Tiff)] {
            let bytes = resource_for(name, "imread").unwrap().content;
            assert_eq!(image::guess_format(&bytes).unwrap(), format, "{name}");
            assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 4, "{name}");
        }
    }

}
