//! Reading keys: newline-delimited, from files or stdin, in bounded chunks,
//! so a 10 GB input never sits in memory.
//!
//! A key is one line without its `\n` or `\r\n`, hashed by the library's
//! byte encoding ([`Bytes`]): the same key as `contains(line)` from
//! Rust. Empty lines are skipped.
//!
//! Sizing a filter from its input needs two passes, one to count the keys
//! and one to insert them. Standard input, a FIFO or a device cannot be
//! read twice, so the counting pass copies each such input to an anonymous
//! temporary file (in `$TMPDIR`, gone when the process ends, however it
//! ends) and the second pass reads the copy: every key is inserted, in any
//! mix of files and `-`.

use anyhow::{Context, Result, bail};
use atomic_bloom::Bytes;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Bytes read at a time; a chunk's keys are processed together, in
/// parallel, while no more than this (plus one line) is buffered.
pub const CHUNK_BYTES: usize = 8 << 20;
/// The longest line accepted, its newline not counted: a longer one is an
/// error, not a reason to buffer without bound.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// What every reader of lines says of a line past [`MAX_LINE_BYTES`].
pub fn line_too_long() -> String {
    format!(
        "a line is longer than 16 MiB ({MAX_LINE_BYTES} bytes, its newline not counted), the \
         longest key this tool reads"
    )
}

/// Whether `path` is `-`, which names stdin as an input (of keys or of a
/// filter) and stdout as an output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A line as a key.
pub type Key<'a> = Bytes<&'a [u8]>;

/// Where one input's bytes come from.
enum Source {
    /// A file that can be opened again for every pass.
    File(PathBuf),
    /// Standard input, not read yet.
    Stdin,
    /// An input that cannot be read twice, copied by an earlier pass.
    Spooled { name: String, copy: File },
}

impl Source {
    fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Stdin => "stdin".to_string(),
            Source::Spooled { name, .. } => name.clone(),
        }
    }

    fn open(&self) -> Result<Box<dyn Read + '_>> {
        Ok(match self {
            Source::File(path) => Box::new(
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
            ),
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::Spooled { copy, .. } => {
                let mut copy = copy;
                copy.rewind().context("cannot reread the spooled input")?;
                Box::new(copy)
            }
        })
    }

    /// Whether a second pass could read this input again.
    fn rereadable(&self) -> bool {
        match self {
            Source::File(path) => std::fs::metadata(path).is_ok_and(|m| m.is_file()),
            Source::Stdin => false,
            Source::Spooled { .. } => true,
        }
    }

    /// Bytes in the input, if known before reading it.
    fn len(&self) -> Option<u64> {
        match self {
            Source::File(path) => std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            Source::Stdin => None,
            Source::Spooled { copy, .. } => copy.metadata().ok().map(|m| m.len()),
        }
    }
}

/// The inputs of one command, in order: files, and `-` for stdin (none
/// given means stdin).
pub struct Inputs {
    sources: Vec<Source>,
}

impl Inputs {
    pub fn new(paths: &[PathBuf]) -> Inputs {
        let source = |path: &PathBuf| match is_stdio(path) {
            true => Source::Stdin,
            false => Source::File(path.clone()),
        };
        let sources = match paths {
            [] => vec![Source::Stdin],
            paths => paths.iter().map(source).collect(),
        };
        Inputs { sources }
    }

    /// Whether any input is stdin.
    pub fn reads_stdin(&self) -> bool {
        self.sources.iter().any(|s| matches!(s, Source::Stdin))
    }

    /// Total bytes of the inputs, if all are known (for a progress bar).
    pub fn total_bytes(&self) -> Option<u64> {
        self.sources.iter().map(Source::len).sum()
    }

    /// Counts the keys, copying every input that cannot be read twice to a
    /// temporary file that later passes read instead.
    pub fn count_keys(&mut self) -> Result<u64> {
        let bar = progress(self.total_bytes(), "counting keys");
        let mut keys = 0;
        for source in &mut self.sources {
            if source.rereadable() {
                keys += read_chunks(source.open()?, &source.name(), &bar, |_| Ok(()))?;
                continue;
            }
            let name = source.name();
            let copy = tempfile::tempfile().context("cannot create a temporary file")?;
            let mut tee = Tee {
                input: source.open()?,
                copy: io::BufWriter::new(&copy),
            };
            keys += read_chunks(&mut tee, &name, &bar, |_| Ok(()))?;
            tee.copy
                .flush()
                .with_context(|| format!("cannot copy {name} to a temporary file"))?;
            drop(tee);
            *source = Source::Spooled { name, copy };
        }
        bar.finish_and_clear();
        Ok(keys)
    }

    /// Calls `each` with the keys of every chunk of the inputs, in order; the
    /// keys borrow a buffer that is reused. Returns the number of keys.
    pub fn for_each_chunk(
        &self,
        bar: &ProgressBar,
        mut each: impl FnMut(&[Key<'_>]) -> Result<()>,
    ) -> Result<u64> {
        let mut keys = 0;
        for source in &self.sources {
            keys += read_chunks(source.open()?, &source.name(), bar, &mut each)?;
        }
        Ok(keys)
    }
}

/// A reader that copies what it reads to `copy`.
struct Tee<R, W> {
    input: R,
    copy: W,
}

impl<R: Read, W: Write> Read for Tee<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        self.copy.write_all(&buf[..n])?;
        Ok(n)
    }
}

/// The keys of one input, a chunk at a time.
fn read_chunks(
    input: impl Read,
    name: &str,
    bar: &ProgressBar,
    mut each: impl FnMut(&[Key<'_>]) -> Result<()>,
) -> Result<u64> {
    let mut keys = 0u64;
    let mut buf = Vec::with_capacity(CHUNK_BYTES + 1024);
    let mut reader = BufReader::with_capacity(1 << 20, input);
    loop {
        // Fill the chunk with whole lines.
        buf.clear();
        while buf.len() < CHUNK_BYTES {
            let start = buf.len();
            let n = reader
                .by_ref()
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("cannot read {name}"))?;
            if n == 0 {
                break;
            }
            let line = &buf[start..];
            if line.strip_suffix(b"\n").unwrap_or(line).len() > MAX_LINE_BYTES {
                bail!("{name}: {}", line_too_long());
            }
        }
        if buf.is_empty() {
            return Ok(keys);
        }
        bar.inc(buf.len() as u64);
        let lines = line_keys(&buf);
        keys += lines.len() as u64;
        each(&lines)?;
    }
}

/// The keys of `lines`: each line without its `\n` or `\r\n`, empty
/// lines skipped.
pub fn line_keys(lines: &[u8]) -> Vec<Key<'_>> {
    lines
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.is_empty())
        .map(Bytes)
        .collect()
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
pub fn progress(total: Option<u64>, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = if total.is_some() {
        "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})"
    } else {
        "{msg} {spinner} {bytes} ({bytes_per_sec})"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}
