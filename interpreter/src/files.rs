//! Reading the files a game names, safely: rule files come from strangers (pull requests to a
//! house-rule repository), so every path they name must stay inside the folder it belongs to
//! after symlinks are followed, and only regular files of a bounded size are read. A refused
//! file is never opened, so nothing of it can reach a diagnostic.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest game file (TOML or Rhai) the loader reads.
pub const MAX_GAME_FILE_BYTES: u64 = 1 << 20;

/// The largest scenario or transcript file `rulebook test` and `rulebook replay` read.
pub const MAX_SCRIPT_TEXT_BYTES: u64 = 16 << 20;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// No such file (or a dangling link).
    Missing,
    /// The path leads outside the folder it must stay in (after following links).
    Outside {
        /// The folder the path must stay inside.
        root: PathBuf,
    },
    /// Not a regular file: a folder, a device, a FIFO, a socket.
    NotRegular,
    /// Larger than the cap.
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The cap in bytes.
        cap: u64,
    },
    /// Not UTF-8 text.
    NotText,
    /// Another I/O error.
    Io(String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Missing => write!(f, "no such file"),
            FileError::Outside { root } => {
                write!(f, "it lies outside `{}` (after following links), so it is not read", root.display())
            }
            FileError::NotRegular => write!(f, "it is not a regular file (a folder, device, pipe or socket)"),
            FileError::TooLarge { size, cap } => {
                write!(f, "it has {size} bytes, more than the {} a file may have", human_bytes(*cap))
            }
            FileError::NotText => write!(f, "it is not UTF-8 text"),
            FileError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// `1 MiB`, `16 MiB`, `512 KiB`, `100 bytes`.
pub fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// `dir/rel`, refused unless it exists and its real path (links followed) lies inside `root`.
/// Returns the path as written (for messages), not the canonical one.
pub fn resolve_inside(root: &Path, dir: &Path, rel: &str) -> Result<PathBuf, FileError> {
    let path = dir.join(rel);
    check_inside(root, &path)?;
    Ok(path)
}

/// Refuses `path` unless it exists and its real path lies inside `root`.
pub fn check_inside(root: &Path, path: &Path) -> Result<(), FileError> {
    let real_root = root.canonicalize().map_err(|_| FileError::Missing)?;
    if std::fs::symlink_metadata(path).is_err() {
        return Err(FileError::Missing);
    }
    let real = path.canonicalize().map_err(|_| FileError::Missing)?;
    if real.starts_with(&real_root) {
        Ok(())
    } else {
        Err(FileError::Outside { root: root.to_path_buf() })
    }
}

/// Whether `path` is a regular file (links followed), without opening it.
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Reads a regular UTF-8 file of at most `cap` bytes. Devices, pipes and folders are refused
/// before they are opened (opening a FIFO would block); a file that grows while it is read
/// is cut at the cap and refused.
pub fn read_text(path: &Path, cap: u64) -> Result<String, FileError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => FileError::Missing,
        _ => FileError::Io(e.to_string()),
    })?;
    if !meta.is_file() {
        return Err(FileError::NotRegular);
    }
    if meta.len() > cap {
        return Err(FileError::TooLarge { size: meta.len(), cap });
    }
    let file = std::fs::File::open(path).map_err(|e| FileError::Io(e.to_string()))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| FileError::Io(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge { size: bytes.len() as u64, cap });
    }
    String::from_utf8(bytes).map_err(|_| FileError::NotText)
}

/// Reads a game file that must lie inside `root`: both checks in one.
pub fn read_inside(root: &Path, path: &Path) -> Result<String, FileError> {
    check_inside(root, path)?;
    read_text(path, MAX_GAME_FILE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder holding an empty `game` folder, removed when the guard is dropped.
    fn temp(name: &str) -> tempfile::TempDir {
        let d = tempfile::Builder::new().prefix(&format!("rulebook-files-{name}-")).tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("game")).unwrap();
        d
    }

    #[test]
    fn paths_must_stay_inside_the_root() {
        let scratch = temp("inside");
        let d = scratch.path();
        let game = d.join("game");
        std::fs::write(game.join("a.toml"), "x = 1").unwrap();
        std::fs::write(d.join("secret"), "password").unwrap();
        assert!(resolve_inside(&game, &game, "a.toml").is_ok());
        assert_eq!(resolve_inside(&game, &game, "nope.toml"), Err(FileError::Missing));
        assert!(matches!(resolve_inside(&game, &game, "../secret"), Err(FileError::Outside { .. })));
        assert!(matches!(resolve_inside(&game, &game, "/etc/hostname"), Err(FileError::Outside { .. })));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("secret"), game.join("link.rhai")).unwrap();
            assert!(matches!(resolve_inside(&game, &game, "link.rhai"), Err(FileError::Outside { .. })));
        }
    }

    #[test]
    fn only_small_regular_text_files_are_read() {
        let scratch = temp("read");
        let d = scratch.path();
        let game = d.join("game");
        std::fs::write(game.join("big"), vec![b'a'; 2000]).unwrap();
        std::fs::write(game.join("bin"), [0xff, 0xfe, 0]).unwrap();
        assert_eq!(read_text(&game.join("big"), 1000), Err(FileError::TooLarge { size: 2000, cap: 1000 }));
        assert_eq!(read_text(&game.join("big"), 5000).unwrap().len(), 2000);
        assert_eq!(read_text(&game.join("bin"), 5000), Err(FileError::NotText));
        assert_eq!(read_text(&game, 5000), Err(FileError::NotRegular));
        #[cfg(unix)]
        assert_eq!(read_text(Path::new("/dev/zero"), 5000), Err(FileError::NotRegular));
    }
}
