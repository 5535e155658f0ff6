//! Reading keys: newline-delimited, from files or stdin, in bounded chunks,
//! so a 10 GB input never sits in memory.
//!
//! Reading runs at the speed of the disk or page cache, not of a loop over
//! lines: a chunk is one large read, cut after its last newline (a file is
//! read a chunk ahead on a thread of its own), and its lines are found with
//! `memchr` and split, counted and hashed on every core.
//!
//! A key is one line without its `\n` or `\r\n`, hashed by the library's
//! byte encoding ([`Bytes`]): the same key as `contains(line)` from
//! Rust. Empty lines are skipped.
//!
//! Sizing a filter from its input needs the keys counted before any is
//! inserted. The counting pass keeps their hashes while they are few enough
//! (`build.rs` sets how many), and then nothing is read twice; past that, a
//! second pass reads the input again to insert. Standard input, a FIFO or a device cannot be
//! read twice, so the counting pass copies each such input to an anonymous
//! temporary file (in `$TMPDIR`, gone when the process ends, however it
//! ends) and the second pass reads the copy: every key is inserted, in any
//! mix of files and `-`.

use anyhow::{Context, Result, bail};
use atomic_bloom::Bytes;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Seek, Write};
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

    /// The input to read: a file (to read ahead) or a stream.
    fn input(&self) -> Result<Input<'_>> {
        Ok(match self {
            Source::File(path) if std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {
                Input::File(
                    File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
                )
            }
            Source::Spooled { copy, .. } => {
                let mut copy = copy
                    .try_clone()
                    .context("cannot reread the spooled input")?;
                copy.rewind().context("cannot reread the spooled input")?;
                Input::File(copy)
            }
            _ => Input::Stream(self.open()?),
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
    /// temporary file that later passes read instead; and hashes them with
    /// `hasher` while they are at most `budget`, so that an input of that
    /// many keys is read once: [`Counted::hashes`] then holds every key's
    /// hash, in order.
    pub fn count_keys<S: BuildHasher + Sync>(
        &mut self,
        hasher: &S,
        budget: usize,
    ) -> Result<Counted> {
        let bar = progress(self.total_bytes(), "counting keys");
        let mut counted = Counted {
            keys: 0,
            hashes: Some(Vec::new()),
        };
        for source in &mut self.sources {
            if source.rereadable() {
                counted.read(source.input()?, &source.name(), &bar, hasher, budget)?;
                continue;
            }
            let name = source.name();
            let copy = tempfile::tempfile().context("cannot create a temporary file")?;
            let mut tee = Tee {
                input: source.open()?,
                copy: io::BufWriter::new(&copy),
            };
            counted.read(
                Input::Stream(Box::new(&mut tee)),
                &name,
                &bar,
                hasher,
                budget,
            )?;
            tee.copy
                .flush()
                .with_context(|| format!("cannot copy {name} to a temporary file"))?;
            drop(tee);
            *source = Source::Spooled { name, copy };
        }
        bar.finish_and_clear();
        Ok(counted)
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
            keys += read_chunks(source.input()?, &source.name(), bar, &mut each)?;
        }
        Ok(keys)
    }
}

/// What [`Inputs::count_keys`] found.
pub struct Counted {
    /// The keys of every input.
    pub keys: u64,
    /// Every key's hash, in order, if there were few enough to keep.
    pub hashes: Option<Vec<u64>>,
}

impl Counted {
    /// Counts (and hashes, [`add`](Self::add)) the keys of one input.
    fn read<S: BuildHasher + Sync>(
        &mut self,
        input: Input<'_>,
        name: &str,
        bar: &ProgressBar,
        hasher: &S,
        budget: usize,
    ) -> Result<()> {
        read_blocks(input, name, bar, |block| {
            self.add(block, hasher, budget)
                .with_context(|| name.to_string())
        })
    }

    /// Counts the keys of `block`, and hashes them on every core while the
    /// hashes kept stay within `budget`; past it, drops the hashes and only
    /// counts ([`par_count_keys`]).
    fn add<S: BuildHasher + Sync>(
        &mut self,
        block: &[u8],
        hasher: &S,
        budget: usize,
    ) -> Result<()> {
        use rayon::prelude::*;
        if let Some(hashes) = &mut self.hashes {
            let keys = par_line_keys(block)?;
            self.keys += keys.len() as u64;
            if hashes.len() + keys.len() <= budget {
                hashes.par_extend(keys.par_iter().map(|key| hasher.hash_one(key)));
            } else {
                self.hashes = None;
            }
            return Ok(());
        }
        self.keys += par_count_keys(block)?;
        Ok(())
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

/// The keys of one input, a chunk at a time: [`read_blocks`] of whole
/// lines, each split into keys on every core ([`par_line_keys`]).
fn read_chunks(
    input: Input<'_>,
    name: &str,
    bar: &ProgressBar,
    mut each: impl FnMut(&[Key<'_>]) -> Result<()>,
) -> Result<u64> {
    let mut keys = 0u64;
    read_blocks(input, name, bar, |block| {
        let lines = par_line_keys(block).with_context(|| name.to_string())?;
        keys += lines.len() as u64;
        each(&lines)
    })?;
    Ok(keys)
}

/// Calls `each` with the blocks of whole lines of `input`, in order: about
/// [`CHUNK_BYTES`] read at a time with one large read (no search for
/// newlines while reading), cut after the block's last newline, the
/// partial line after it carried to the front of the next block. The last
/// block may end without a newline. A line that fills the buffer past
/// [`MAX_LINE_BYTES`] without ending is an error.
///
/// A file is read a block ahead on a thread of its own, so that reading
/// (a copy out of the page cache) overlaps the work on the block before;
/// standard input is read on the caller's thread, since a read of a pipe
/// may wait for ever, and a thread blocked in it could not be joined.
fn read_blocks(
    input: Input<'_>,
    name: &str,
    bar: &ProgressBar,
    mut each: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut done = |block: &[u8]| {
        bar.inc(block.len() as u64);
        each(block)
    };
    let file = match input {
        Input::File(file) => file,
        Input::Stream(stream) => {
            let mut blocks = Blocks::new(stream, name);
            let mut spent = Vec::new();
            while let Some(block) = blocks.next(spent)? {
                done(&block)?;
                spent = block;
            }
            return Ok(());
        }
    };
    std::thread::scope(|scope| {
        let (full, blocks) = std::sync::mpsc::sync_channel::<Result<Vec<u8>>>(1);
        let (spent, spares) = std::sync::mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            let mut reader = Blocks::new(file, name);
            loop {
                let spare = spares.try_recv().unwrap_or_default();
                let block = reader.next(spare).transpose();
                let last = !matches!(block, Some(Ok(_)));
                // A closed channel: the caller stopped (an error of its own).
                if block.is_some_and(|block| full.send(block).is_err()) || last {
                    return;
                }
            }
        });
        // Leaving early drops `blocks`, and the reader stops at its next send.
        for block in blocks {
            let block = block?;
            done(&block)?;
            let _ = spent.send(block);
        }
        Ok(())
    })
}

/// Where [`read_blocks`] reads: a file, read ahead, or a stream.
enum Input<'a> {
    File(File),
    Stream(Box<dyn Read + 'a>),
}

/// The blocks of whole lines of one input ([`read_blocks`]).
struct Blocks<'n, R> {
    input: R,
    name: &'n str,
    /// The partial line after the last block.
    carry: Vec<u8>,
    ended: bool,
}

impl<'n, R: Read> Blocks<'n, R> {
    fn new(input: R, name: &'n str) -> Self {
        Blocks {
            input,
            name,
            carry: Vec::new(),
            ended: false,
        }
    }

    /// The next block, in `buf` (cleared first: a spent block to reuse), or
    /// `None` at the end.
    fn next(&mut self, mut buf: Vec<u8>) -> Result<Option<Vec<u8>>> {
        buf.clear();
        buf.append(&mut self.carry);
        loop {
            if self.ended {
                return Ok((!buf.is_empty()).then_some(buf));
            }
            let want = CHUNK_BYTES as u64;
            let read = (&mut self.input)
                .take(want)
                .read_to_end(&mut buf)
                .with_context(|| format!("cannot read {}", self.name))?;
            self.ended = (read as u64) < want;
            if self.ended {
                continue;
            }
            match memchr::memrchr(b'\n', &buf) {
                Some(newline) => {
                    self.carry.extend_from_slice(&buf[newline + 1..]);
                    buf.truncate(newline + 1);
                    return Ok(Some(buf));
                }
                // No line ends in the buffer yet: read on, up to the limit.
                None if buf.len() <= MAX_LINE_BYTES + 1 => {}
                None => bail!("{}: {}", self.name, line_too_long()),
            }
        }
    }
}

/// The keys of `lines`: each line without its `\n` or `\r\n`, empty
/// lines skipped; an error for a line past [`MAX_LINE_BYTES`].
pub fn line_keys(lines: &[u8]) -> Result<Vec<Key<'_>>> {
    let mut keys = Vec::with_capacity(lines.len() / 32);
    for line in split_lines(lines) {
        let key = line?;
        if !key.is_empty() {
            keys.push(Bytes(key));
        }
    }
    Ok(keys)
}

/// Each line of `lines` without its `\n` or `\r\n` (empty ones too), or
/// an error for one past [`MAX_LINE_BYTES`].
fn split_lines(lines: &[u8]) -> impl Iterator<Item = Result<&[u8]>> {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', lines).chain(std::iter::once(lines.len()));
    ends.filter_map(move |end| {
        let line = &lines[start..end];
        start = end + 1;
        // Past the last newline: nothing, or a last line with none.
        if end == lines.len() && line.is_empty() {
            return None;
        }
        let key = line.strip_suffix(b"\r").unwrap_or(line);
        Some(if key.len() > MAX_LINE_BYTES {
            Err(anyhow::anyhow!("{}", line_too_long()))
        } else {
            Ok(key)
        })
    })
}

/// [`line_keys`] on every core: `lines` cut into pieces at newlines
/// ([`pieces`]), each split on its own, the keys joined in order.
pub fn par_line_keys(lines: &[u8]) -> Result<Vec<Key<'_>>> {
    use rayon::prelude::*;
    let parts: Vec<Vec<Key<'_>>> = pieces(lines)
        .par_iter()
        .map(|piece| line_keys(piece))
        .collect::<Result<_>>()?;
    Ok(parts.concat())
}

/// How many keys `lines` holds, as [`line_keys`] would find them, on every
/// core, without making them.
fn par_count_keys(lines: &[u8]) -> Result<u64> {
    use rayon::prelude::*;
    pieces(lines)
        .par_iter()
        .map(|piece| {
            split_lines(piece).try_fold(0, |keys, line| Ok(keys + u64::from(!line?.is_empty())))
        })
        .sum()
}

/// `lines` cut after newlines into a few pieces per thread (none shorter
/// than 64 KiB but the last), each holding whole lines, in order.
fn pieces(lines: &[u8]) -> Vec<&[u8]> {
    const MIN_PIECE: usize = 1 << 16;
    let count = (lines.len() / MIN_PIECE).clamp(1, 4 * rayon::current_num_threads());
    let mut pieces = Vec::with_capacity(count);
    let mut start = 0;
    for i in 1..=count {
        let at = (lines.len() * i / count).max(start);
        let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |n| at + n + 1);
        pieces.push(&lines[start..end]);
        start = end;
    }
    pieces
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines with `\r\n`, empty lines, a last line without a newline, and
    /// lines cut across every piece boundary.
    fn sample() -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..200_000u32 {
            match i % 7 {
                0 => text.extend_from_slice(b"\n"),
                1 => text.extend_from_slice(format!("key-{i}\r\n").as_bytes()),
                2 => text.extend_from_slice(b"\r\n"),
                _ => text.extend_from_slice(format!("https://example.com/{i}\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"last-line-without-newline");
        text
    }

    /// Split on every core, the keys are the serial split's, in order, and
    /// the count on every core is their number.
    #[test]
    fn parallel_splits_and_counts_are_the_serial_split() {
        let text = sample();
        let serial = line_keys(&text).unwrap();
        assert_eq!(
            serial.last().map(|k| k.0),
            Some(&b"last-line-without-newline"[..])
        );
        assert!(
            serial
                .iter()
                .all(|k| !k.0.is_empty() && !k.0.ends_with(b"\r"))
        );
        let parallel = par_line_keys(&text).unwrap();
        assert!(serial.iter().map(|k| k.0).eq(parallel.iter().map(|k| k.0)));
        assert_eq!(par_count_keys(&text).unwrap(), serial.len() as u64);
    }

    /// A reader that gives a few bytes per call: blocks still hold whole
    /// lines, and together every byte, in order.
    #[test]
    fn blocks_hold_whole_lines_however_the_input_is_read() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(4093);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = sample().repeat(2);
        let mut blocks = Blocks::new(Trickle(&text), "sample");
        let mut joined = Vec::new();
        while let Some(block) = blocks.next(Vec::new()).unwrap() {
            let ended = joined.len() + block.len() == text.len();
            assert!(ended || block.ends_with(b"\n"), "a block ends mid-line");
            joined.extend_from_slice(&block);
        }
        assert_eq!(joined, text);
    }

    /// Counting keeps every key's hash, in order, while they fit the
    /// budget, and past it only counts.
    #[test]
    fn counting_keeps_the_hashes_within_the_budget() {
        let text = sample();
        let path = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(path.path(), &text).unwrap();
        let hasher = atomic_bloom::WyBuildHasher::with_seed(3);
        let keys = line_keys(&text).unwrap();
        let mut inputs = Inputs::new(&[path.path().to_path_buf()]);
        let kept = inputs.count_keys(&hasher, keys.len()).unwrap();
        assert_eq!(kept.keys, keys.len() as u64);
        let expected: Vec<u64> = keys.iter().map(|k| hasher.hash_one(k)).collect();
        assert_eq!(kept.hashes, Some(expected));
        let over = inputs.count_keys(&hasher, keys.len() - 1).unwrap();
        assert_eq!((over.keys, over.hashes), (keys.len() as u64, None));
    }

    /// A file read ahead on its own thread gives the same keys as the
    /// same bytes read as a stream.
    #[test]
    fn a_file_read_ahead_gives_the_streams_keys() {
        let text = sample().repeat(4);
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&text).unwrap();
        file.rewind().unwrap();
        let bar = ProgressBar::hidden();
        let mut from_file = Vec::new();
        read_chunks(Input::File(file), "file", &bar, |keys| {
            from_file.extend(keys.iter().map(|k| k.0.to_vec()));
            Ok(())
        })
        .unwrap();
        let mut from_stream = Vec::new();
        read_chunks(Input::Stream(Box::new(&text[..])), "stream", &bar, |keys| {
            from_stream.extend(keys.iter().map(|k| k.0.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(from_file.len(), line_keys(&text).unwrap().len());
        assert_eq!(from_file, from_stream);
    }
}
