//! `build`: keys in, filter file out, every core inserting.

use crate::keys::Inputs;
use crate::stream::{self, Event};
use crate::{keys, output};
use anyhow::{Context, Result, bail};
use atomic_bloom::{
    AtomicBloom, AtomicGrowableBloom, BitArray, Builder, Cells, CounterArray, Filter, GuavaBloom,
    Layout, ReadError, SharedError, SharedOptions, WyBuildHasher,
};
use atomic_bloom::{Membership, SavedFilter};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Files of newline-delimited keys, `-` for stdin, in any mix; none
    /// reads stdin.
    inputs: Vec<PathBuf>,
    /// Where to write the filter: a file (replaced atomically: a crash
    /// leaves no torn file; a symlink is followed), a device or FIFO
    /// (written as a stream), or `-` for stdout.
    #[arg(short, long)]
    output: PathBuf,
    /// Target false-positive rate at the expected number of keys (with
    /// `--growable`: however many keys come), in (0, 1).
    #[arg(long, default_value_t = 0.01, allow_negative_numbers = true)]
    fpp: f64,
    /// Keys the filter is sized for; by default the input's keys are counted
    /// first (stdin and pipes are copied to a temporary file to do so).
    #[arg(long, conflicts_with = "growable")]
    expected: Option<usize>,
    /// Where each key's bits go: standard, blocked, word, sectorized or
    /// split-block.
    #[arg(long, default_value_t = Layout::default())]
    layout: Layout,
    /// Seed of the key hasher; readers need not know it (it is in the file).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Build a counting filter, from which `remove` can take keys again:
    /// a 4-bit counter per bit, four times the size of a plain filter, with
    /// the same false-positive rate.
    #[arg(long, conflicts_with = "growable")]
    counting: bool,
    /// Build a growable filter: a chain of sub-filters, each twice the
    /// keys of the one before at 0.9 times its rate, that keeps the
    /// false-positive rate below --fpp however many keys arrive. The input
    /// is read once and never counted first. It costs about twice the bits
    /// per key of a filter sized for the count (at --fpp 0.01, 25 bits per
    /// key at 1M keys and 19 at 100M, against 10, the newest sub-filter
    /// being partly empty: `cargo run --release --example growable_memory`),
    /// and queries probe every sub-filter: when the count can be known,
    /// leave --growable out (the input is counted first). Lines are taken
    /// as they arrive, so an endless input works (`tail -f log | build
    /// --growable -o f`): Ctrl-C or SIGTERM ends the input, the keys read
    /// until then are saved (atomically), and the status is 130 (143 for
    /// SIGTERM). Without
    /// --growable a signal abandons the build and writes nothing.
    #[arg(long)]
    growable: bool,
    /// With --growable: keys the first sub-filter holds. Fewer sub-filters
    /// to probe and fewer bits per key at scale; a small input still pays
    /// for the first sub-filter (about 200 kB at the defaults).
    #[arg(long, requires = "growable", default_value_t = 100_000)]
    initial_capacity: usize,
    /// With --growable: the most bytes the sub-filters may take, as a
    /// number of bytes or with a unit (`512MiB`, `2GB`). A build that needs
    /// more stops with an error and writes nothing.
    #[arg(long, requires = "growable", value_parser = bytes)]
    memory_limit: Option<u64>,
    /// Build into a shared file that other processes map and insert into
    /// at once (the library's shared filters, Linux): a plain or counting
    /// (--counting) filter. If --output is a shared file already, the keys
    /// are inserted into it, as other processes insert (its size and
    /// layout are the file's); otherwise a shared file is created (a
    /// file another process has open for writing is never replaced). Keys
    /// reach the file as they are inserted: a signal stops the build with
    /// the keys inserted so far in it, the file then marked as left open
    /// (`info` says so).
    #[arg(long, conflicts_with = "growable")]
    shared: bool,
    /// The file's format: atomic-bloom's own, or the JVM's, for Java and
    /// Spark jobs to read. `spark` is Apache Spark's
    /// `BloomFilter.writeTo` form (V2), sized as Spark's
    /// `BloomFilter.create(expected, fpp)` sizes it: Spark's
    /// `BloomFilter.readFrom` reads it, and `mightContainString` of a line
    /// finds it. `guava` is Google Guava's `writeTo` form, sized as
    /// `BloomFilter.create(Funnels.stringFunnel(UTF_8), expected, fpp)`:
    /// Guava's `readFrom` with that funnel reads it. Both are plain
    /// filters; every command here reads them.
    #[arg(
        long,
        value_enum,
        default_value_t = Format::AtomicBloom,
        conflicts_with_all = ["counting", "growable", "shared", "layout", "seed"]
    )]
    format: Format,
}

/// The formats `build` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    AtomicBloom,
    Spark,
    Guava,
}

/// Keys whose hashes the counting pass keeps (8 bytes each: 128 MiB), so
/// that an input of up to that many keys is read once.
const KEPT_HASHES: usize = 1 << 24;

/// Inserts the keys of `inputs` as their lines arrive, until they end or a
/// signal comes: the keys read and whether a signal ended them.
fn insert_stream(
    inputs: &[PathBuf],
    bar: &indicatif::ProgressBar,
    insert: &mut impl FnMut(&[keys::Key<'_>]) -> Result<()>,
) -> Result<(u64, bool)> {
    let mut read = 0;
    for event in stream::lines_and_signals(inputs.to_vec()) {
        match event {
            Event::Lines(chunk) => {
                bar.inc(chunk.len() as u64);
                let keys = keys::par_line_keys(&chunk)?;
                read += keys.len() as u64;
                insert(&keys)?;
            }
            Event::End(result) => return result.map(|()| (read, false)),
            Event::Signal => return Ok((read, true)),
        }
    }
    Ok((read, false))
}

/// An input with no key gives an empty filter, which answers "absent" to
/// every key: likely not what was meant (a wrong file, an empty pipe).
fn warn_if_empty(read: u64) {
    if read == 0 {
        eprintln!(
            "atomic-bloom: warning: the input held no keys (empty lines are skipped): the \
             filter is empty and reports every key absent"
        );
    }
}

/// A size in bytes: a number, with an optional unit of the decimal (`KB`,
/// `MB`, `GB`) or binary (`KiB`, `MiB`, `GiB`) kind, as parse-size reads it.
fn bytes(size: &str) -> Result<u64, String> {
    parse_size::parse_size(size).map_err(|error| {
        format!("{error}; expected a size in bytes, such as 500000000, 512MiB or 2GB")
    })
}

/// `build --shared`: the keys into a shared file, opened or created.
fn run_shared(args: Args) -> Result<()> {
    let start = Instant::now();
    output::refuse_output_among_inputs(&args.output, "--output", &args.inputs)?;
    if keys::is_stdio(&args.output) || std::fs::metadata(&args.output).is_ok_and(|m| !m.is_file()) {
        bail!("--shared builds a file that processes map: give --output a file path");
    }
    let mut inputs = Inputs::new(&args.inputs);
    if args.counting {
        let filter = shared::<CounterArray>(&args, &mut inputs)?;
        insert_shared(&args, &inputs, filter, start, "counting, ")
    } else {
        let filter = shared::<BitArray>(&args, &mut inputs)?;
        insert_shared(&args, &inputs, filter, start, "")
    }
}

/// The shared file at `--output` opened to insert into, or a new one sized
/// as a build sizes a filter.
fn shared<C: Cells>(args: &Args, inputs: &mut Inputs) -> Result<Filter<C>> {
    let path = &args.output;
    match Filter::<C>::open_shared(path, SharedOptions::read_write()) {
        Ok(filter) => return Ok(filter),
        // Not there, or not a shared file: a new one replaces it below.
        Err(SharedError::File { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {}
        Err(SharedError::NotWritable { .. }) => {}
        Err(SharedError::Invalid {
            source: ReadError::BadMagic,
            ..
        }) => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot build into {}", path.display()));
        }
    }
    let expected = match args.expected {
        Some(n) => n,
        None => {
            let counted = inputs.count_keys(&WyBuildHasher::with_seed(args.seed), 0)?;
            usize::try_from(counted.keys).unwrap_or(usize::MAX).max(1)
        }
    };
    Builder::<C>::default()
        .capacity(expected, args.fpp)
        .layout(args.layout)
        .seed(args.seed)
        .build_shared(path)
        .with_context(|| format!("cannot create {}", path.display()))
}

fn insert_shared<C: Cells>(
    args: &Args,
    inputs: &Inputs,
    filter: Filter<C>,
    start: Instant,
    kind: &str,
) -> Result<()> {
    let bar = keys::progress(inputs.total_bytes(), "inserting");
    let mut new = 0;
    let read = inputs.for_each_chunk(&bar, |chunk| {
        new += filter.par_insert(chunk);
        Ok(())
    })?;
    bar.finish_and_clear();
    let sizing = filter.sizing();
    let rate = filter.estimated_false_positive_rate();
    filter
        .close()
        .with_context(|| format!("cannot close {}", args.output.display()))?;
    eprintln!(
        "built {} (shared): {} read, {new} new; {kind}{} layout, {} cells, k = {}; \
         estimated false-positive rate now {rate:.3e}; {:.1} s",
        args.output.display(),
        output::counted(read, "key"),
        sizing.layout(),
        sizing.num_bits(),
        sizing.num_hashes(),
        start.elapsed().as_secs_f64(),
    );
    warn_if_empty(read);
    Ok(())
}

/// `build --format spark|guava`: a plain filter sized, filled and written
/// as the JVM's library would make it from the same lines.
fn run_jvm(args: Args) -> Result<()> {
    let start = Instant::now();
    output::refuse_output_among_inputs(&args.output, "--output", &args.inputs)?;
    let mut inputs = Inputs::new(&args.inputs);
    let expected = match args.expected {
        Some(n) => n as u64,
        // Counted only: the JVM's hashes are not wyhash's, so none are kept.
        None => inputs
            .count_keys(&WyBuildHasher::with_seed(args.seed), 0)?
            .keys
            .max(1),
    };
    let bar = keys::progress(inputs.total_bytes(), "inserting");
    let mut new = 0;
    let (read, format, num_bits, num_hashes, rate) = match args.format {
        Format::Spark => {
            let f = AtomicBloom::spark(expected, args.fpp).context("invalid filter parameters")?;
            let read = inputs.for_each_chunk(&bar, |chunk| {
                new += f.par_insert(chunk);
                Ok(())
            })?;
            bar.finish_and_clear();
            output::save_with(&args.output, |out| f.write_spark(out))?;
            let rate = f.estimated_false_positive_rate();
            (
                read,
                "Spark's format, V2",
                f.num_bits(),
                f.num_hashes(),
                rate,
            )
        }
        _ => {
            let f = GuavaBloom::new(expected, args.fpp).context("invalid filter parameters")?;
            let read = inputs.for_each_chunk(&bar, |chunk| {
                // A line is its bytes, as `stringFunnel(UTF_8)` feeds a string.
                new += chunk.par_iter().filter(|key| f.insert(*key)).count();
                Ok(())
            })?;
            bar.finish_and_clear();
            output::save_with(&args.output, |out| f.write_guava(out))?;
            let rate = f.estimated_false_positive_rate();
            (read, "Guava's format", f.num_bits(), f.num_hashes(), rate)
        }
    };
    eprintln!(
        "built {} ({format}): {} read, {new} new; {num_bits} bits, k = {num_hashes}; estimated \
         false-positive rate now {rate:.3e}; {:.1} s",
        args.output.display(),
        output::counted(read, "key"),
        start.elapsed().as_secs_f64(),
    );
    warn_if_empty(read);
    Ok(())
}

pub fn run(args: Args) -> Result<()> {
    if args.shared {
        return run_shared(args);
    }
    if args.format != Format::AtomicBloom {
        return run_jvm(args);
    }
    let start = Instant::now();
    output::refuse_output_among_inputs(&args.output, "--output", &args.inputs)?;
    let mut inputs = Inputs::new(&args.inputs);
    // The keys a fixed-size filter is sized for; none for a growable one,
    // whose input is read once. Counting keeps the keys' hashes while they
    // are few enough, and then the input is not read again.
    let mut hashed = None;
    let expected = match (args.growable, args.expected) {
        (true, _) => None,
        (false, Some(n)) => Some(n),
        (false, None) => {
            let counted = inputs.count_keys(&WyBuildHasher::with_seed(args.seed), KEPT_HASHES)?;
            hashed = counted.hashes;
            Some(usize::try_from(counted.keys).unwrap_or(usize::MAX).max(1))
        }
    };
    let mut filter = match expected {
        None => {
            let mut builder = AtomicGrowableBloom::builder()
                .capacity(args.initial_capacity, args.fpp)
                .layout(args.layout)
                .seed(args.seed);
            if let Some(limit) = args.memory_limit {
                builder = builder.memory_limit(limit);
            }
            builder.build().map(SavedFilter::Growable)
        }
        Some(expected) => {
            fn sized<C: Cells>(args: &Args, expected: usize) -> Builder<C> {
                Builder::default()
                    .capacity(expected, args.fpp)
                    .layout(args.layout)
                    .seed(args.seed)
            }
            if args.counting {
                sized(&args, expected).build().map(SavedFilter::Counting)
            } else {
                sized(&args, expected).build().map(SavedFilter::Bloom)
            }
        }
    }
    .context("invalid filter parameters")?;
    let bar = keys::progress(inputs.total_bytes(), "inserting");
    let mut new = 0;
    // A key the filter cannot take (a growable filter's limit) stops the
    // build before anything is written: a filter missing keys is never
    // saved.
    let mut insert = |chunk: &[keys::Key<'_>]| -> Result<()> {
        new += filter.try_par_insert(chunk).with_context(|| {
            format!(
                "the filter cannot take every key, so nothing was written to {}",
                args.output.display()
            )
        })?;
        Ok(())
    };
    // A growable build may read an endless stream (`tail -f`): it takes
    // lines as they arrive, and a signal ends the input rather than the
    // build. A sized build reads files it has counted: a signal abandons it.
    let read = if let Some(hashes) = hashed {
        // Hashed with the seed the filter was built with (`sized`).
        new += match &mut filter {
            SavedFilter::Bloom(f) => f.par_insert_hash_batch(&hashes),
            SavedFilter::Counting(f) => f.par_insert_hash_batch(&hashes),
            _ => unreachable!("a counted build makes a plain or counting filter"),
        };
        bar.inc(inputs.total_bytes().unwrap_or(0));
        Ok((hashes.len() as u64, false))
    } else if args.growable {
        insert_stream(&args.inputs, &bar, &mut insert)
    } else {
        inputs
            .for_each_chunk(&bar, |chunk| insert(chunk))
            .map(|read| (read, false))
    };
    bar.finish_and_clear();
    let (read, interrupted) = read?;
    output::save(&filter, &args.output)?;
    if interrupted {
        eprintln!(
            "atomic-bloom: interrupted; the {} read before it saved to {}",
            output::counted(read, "key"),
            args.output.display()
        );
        std::process::exit(i32::from(output::interrupted_status()));
    }
    let took = format!(
        "{:.1} s{}",
        start.elapsed().as_secs_f64(),
        describe_peak_memory()
    );
    let output = args.output.display();
    let (kind, sizing, estimated_false_positive_rate) = match &filter {
        SavedFilter::Bloom(f) => ("", f.sizing(), f.estimated_false_positive_rate()),
        SavedFilter::Counting(f) => ("counting, ", f.sizing(), f.estimated_false_positive_rate()),
        SavedFilter::Growable(f) => {
            let per_key = match new {
                0 => String::new(),
                new => format!(
                    " ({:.2} bits per new key)",
                    f.memory_bytes() as f64 * 8.0 / new as f64
                ),
            };
            eprintln!(
                "built {output}: {} read, {new} new; growable, {} layout, {}, \
                 {} bytes{per_key}; false-positive rate bound now {:.3e}; {took}",
                output::counted(read, "key"),
                f.layout(),
                output::counted(f.sub_filters() as u64, "sub-filter"),
                f.memory_bytes(),
                f.false_positive_rate_bound(),
            );
            warn_if_empty(read);
            return Ok(());
        }
        // Build makes no windowed or Parquet filter (nor kinds newer than
        // this tool).
        _ => unreachable!("build made a {} filter", filter.kind()),
    };
    // A fixed-size filter always has its expected count (`None` was the
    // growable one, described above).
    let expected = expected.unwrap_or(1);
    eprintln!(
        "built {output}: {} read, {new} new; {kind}{} layout, {} {} ({:.2} per expected key), k = {}; \
         estimated false-positive rate now {estimated_false_positive_rate:.3e}; {took}",
        output::counted(read, "key"),
        sizing.layout(),
        sizing.num_bits(),
        if args.counting { "counters" } else { "bits" },
        sizing.num_bits() as f64 / expected as f64,
        sizing.num_hashes(),
    );
    warn_if_empty(read);
    // `new` counts keys the filter reported new: distinct keys, certainly
    // more than it was sized for when above `expected`. It undercounts on
    // an over-full filter (a key that lands on set bits is reported
    // present), so the advice is the keys read: at least the distinct keys
    // there are, so one rebuild with it is within the target.
    let over_rate = read > expected as u64 && estimated_false_positive_rate > args.fpp;
    if new > expected || over_rate {
        // A small filter has more bits than its count needs (512 at
        // least), so its rate may still be within the target.
        let against = if estimated_false_positive_rate > args.fpp {
            "above"
        } else {
            "still within"
        };
        eprintln!(
            "atomic-bloom: warning: over capacity: {} read ({new} reported new), more than the \
             {expected} the filter was sized for (--expected); its estimated false-positive rate \
             is {estimated_false_positive_rate:.3e}, {against} the target {}; rebuild with \
             --expected {read} (the keys read: fewer if some repeat), or with --growable",
            output::counted(read, "key"),
            args.fpp
        );
    }
    Ok(())
}

/// `, peak memory N MiB`, where the platform tells.
fn describe_peak_memory() -> String {
    peak_memory()
        .map(|kib| format!(", peak memory {} MiB", kib / 1024))
        .unwrap_or_default()
}

/// The process's peak resident memory in KiB (Linux `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
