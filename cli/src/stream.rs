//! Reading lines as they arrive, for the commands that run on a stream
//! (`dedup`, `build --growable`): a thread reads the inputs and hands over
//! whatever whole lines have arrived, so a line from `tail -f` is taken at
//! once rather than when a chunk fills; Ctrl-C and SIGTERM come in the
//! same queue, after the lines read before them, so the command finishes
//! what was read, saves it, and only then ends.

use crate::filter_file::name;
use crate::keys::{MAX_LINE_BYTES, is_stdio, line_too_long};
use crate::output;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// What the reading thread hands the main one, in order.
pub enum Event {
    /// Whole lines, each ending in `\n`.
    Lines(Vec<u8>),
    /// The inputs ended, or failed.
    End(Result<()>),
    /// Ctrl-C or SIGTERM.
    Signal,
}

/// The lines of `inputs` (none: stdin) as they arrive, then their end, with
/// every SIGINT and SIGTERM from now on as an [`Event::Signal`] among them.
pub fn lines_and_signals(inputs: Vec<PathBuf>) -> Receiver<Event> {
    let (events, incoming) = sync_channel(4);
    let signals = events.clone();
    output::route_signals(Box::new(move || {
        // A full channel means the main thread has events to work through:
        // the signal waits its turn behind them.
        let _ = signals.send(Event::Signal);
    }));
    std::thread::spawn(move || {
        let result = read_lines(&inputs, &events);
        let _ = events.send(Event::End(result));
    });
    incoming
}

/// Reads every input's lines, handing over whole lines as they arrive.
fn read_lines(inputs: &[PathBuf], events: &SyncSender<Event>) -> Result<()> {
    let stdin = [PathBuf::from("-")];
    let inputs = if inputs.is_empty() {
        &stdin[..]
    } else {
        inputs
    };
    for path in inputs {
        let source: Box<dyn Read> = if is_stdio(path) {
            Box::new(io::stdin().lock())
        } else {
            Box::new(File::open(path).with_context(|| format!("cannot open {}", name(path)))?)
        };
        let mut reader = BufReader::with_capacity(1 << 16, source);
        let mut partial = Vec::new();
        loop {
            let buffer = reader
                .fill_buf()
                .with_context(|| format!("cannot read {}", name(path)))?;
            if buffer.is_empty() {
                break;
            }
            let taken = buffer.len();
            // The line begun in `partial` ends at the first newline here
            // (or goes on past this buffer): the only line that can be long.
            let first_end = buffer.iter().position(|&b| b == b'\n');
            if partial.len() + first_end.unwrap_or(taken) > MAX_LINE_BYTES {
                bail!("{}: {}", name(path), line_too_long());
            }
            match first_end.and_then(|_| buffer.iter().rposition(|&b| b == b'\n')) {
                Some(end) => {
                    let mut chunk = std::mem::take(&mut partial);
                    chunk.extend_from_slice(&buffer[..=end]);
                    partial.extend_from_slice(&buffer[end + 1..]);
                    if events.send(Event::Lines(chunk)).is_err() {
                        return Ok(());
                    }
                }
                None => partial.extend_from_slice(buffer),
            }
            reader.consume(taken);
        }
        if !partial.is_empty() && events.send(Event::Lines(partial)).is_err() {
            return Ok(());
        }
    }
    Ok(())
}
