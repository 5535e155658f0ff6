//! Reading keys: newline-delimited, from files or stdin, in bounded chunks,
//! so a 10 GB input never sits in memory.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Bytes read at a time; a chunk's keys are processed together, in
/// parallel, while no more than this (plus one line) is buffered.
pub const CHUNK_BYTES: usize = 8 << 20;
/// The longest line accepted: a longer one is an error, not a reason to
/// buffer without bound.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Whether `inputs` means standard input.
pub fn is_stdin(inputs: &[PathBuf]) -> bool {
    inputs.is_empty() || inputs.iter().all(|p| p.as_os_str() == "-")
}

fn open(path: &Path) -> Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(Box::new(file))
}

/// Total bytes of the input files, if known (not for stdin).
pub fn total_bytes(inputs: &[PathBuf]) -> Option<u64> {
    if is_stdin(inputs) {
        return None;
    }
    inputs
        .iter()
        .map(|p| std::fs::metadata(p).ok().map(|m| m.len()))
        .sum()
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

/// Calls `each` with the keys of every chunk of the inputs, in order; the
/// keys borrow a buffer that is reused. Returns the number of keys.
pub fn for_each_chunk(
    inputs: &[PathBuf],
    bar: &ProgressBar,
    mut each: impl FnMut(&[&[u8]]) -> Result<()>,
) -> Result<u64> {
    let stdin = [PathBuf::from("-")];
    let inputs = if inputs.is_empty() {
        &stdin[..]
    } else {
        inputs
    };
    let mut keys = 0u64;
    let mut buf = Vec::with_capacity(CHUNK_BYTES + 1024);
    for path in inputs {
        let name = path.display();
        let mut reader = BufReader::with_capacity(1 << 20, open(path)?);
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
                if buf.len() - start > MAX_LINE_BYTES {
                    bail!("{name}: a line is longer than {MAX_LINE_BYTES} bytes");
                }
            }
            if buf.is_empty() {
                break;
            }
            bar.inc(buf.len() as u64);
            let lines: Vec<&[u8]> = buf
                .split(|&b| b == b'\n')
                .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
                .filter(|line| !line.is_empty())
                .collect();
            keys += lines.len() as u64;
            each(&lines)?;
        }
    }
    Ok(keys)
}

/// Counts the keys of the input files (for sizing when `--expected` is not
/// given). Standard input cannot be read twice.
pub fn count(inputs: &[PathBuf]) -> Result<u64> {
    if is_stdin(inputs) {
        bail!(
            "reading keys from stdin needs --expected N (stdin cannot be read twice to count them)"
        );
    }
    let bar = progress(total_bytes(inputs), "counting keys");
    let keys = for_each_chunk(inputs, &bar, |_| Ok(()))?;
    bar.finish_and_clear();
    Ok(keys)
}
