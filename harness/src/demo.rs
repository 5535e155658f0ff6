//! `demo`: the main job on an embedded default. A crawler's frontier sees
//! 10 million URLs, many of them repeats; every core deduplicates them
//! through one shared `AtomicBloom`. The demo reports how many URLs were
//! new against the truth, the false-positive rate measured on URLs never
//! seen against the target, the throughput against the same work behind
//! a `Mutex`, and a bulk build of the same requests (`par_extend`), which
//! must give the same bits.

use crate::say;
use anyhow::{Context, Result};
use atomic_bloom::{AtomicBloom, Layout};
use baselines::{MutexFilter, PlainBlocked, mix};
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::fmt::Write;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// URLs the crawler sees (with repeats).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    urls: u64,
    /// Distinct URLs among them, at most.
    #[arg(long, default_value_t = 6_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    distinct: u64,
    /// Target false-positive rate.
    #[arg(long, default_value_t = 0.01)]
    fpp: f64,
    /// Where each key's bits go: standard, blocked, word, sectorized or
    /// split-block.
    #[arg(long, default_value_t = Layout::default())]
    layout: Layout,
}

/// Request `i` asks for page `page(i)`: a fixed pseudo-random choice among
/// `distinct` pages, so popular pages repeat.
fn page(i: u64, distinct: u64) -> u64 {
    let z = mix(i.wrapping_add(0x9E37_79B9_7F4A_7C15));
    ((u128::from(z) * u128::from(distinct)) >> 64) as u64
}

/// The URL of page `id`, written into `buf`.
fn url(buf: &mut String, id: u64) -> &str {
    buf.clear();
    let _ = write!(
        buf,
        "https://site{}.example.com/articles/{id}/index.html",
        id % 5_000
    );
    buf
}

/// Runs `work(url)` for every request on all cores; returns how many
/// returned `true` and the seconds it took.
fn dedup(
    urls: u64,
    distinct: u64,
    bar: &ProgressBar,
    work: impl Fn(&str) -> bool + Sync,
) -> (u64, f64) {
    let start = Instant::now();
    let new = (0..urls.div_ceil(65_536))
        .into_par_iter()
        .map(|chunk| {
            let mut buf = String::with_capacity(64);
            let range = chunk * 65_536..((chunk + 1) * 65_536).min(urls);
            let n = range
                .clone()
                .filter(|&i| work(url(&mut buf, page(i, distinct))))
                .count() as u64;
            bar.inc(range.end - range.start);
            n
        })
        .sum();
    (new, start.elapsed().as_secs_f64())
}

pub fn run(args: Args) -> Result<()> {
    let (urls, distinct) = (args.urls, args.distinct);
    // The truth: which pages the requests actually name, one byte per page
    // (a `--distinct` past the memory is an error, not an abort).
    let mut named = Vec::new();
    usize::try_from(distinct)
        .ok()
        .and_then(|pages| named.try_reserve_exact(pages).ok())
        .with_context(|| format!("cannot allocate {distinct} bytes to track which of --distinct {distinct} pages are named"))?;
    named.resize(distinct as usize, false);
    (0..urls).for_each(|i| named[page(i, distinct) as usize] = true);
    let truly_distinct = named.iter().filter(|&&n| n).count();

    let filter = AtomicBloom::builder()
        .capacity(truly_distinct.max(1), args.fpp)
        .layout(args.layout)
        .build()
        .context("invalid filter parameters")?;
    let threads = rayon::current_num_threads();
    say!(
        "{urls} requests for {truly_distinct} distinct URLs; {} filter for {truly_distinct} keys at p = {}: {:.1} MiB, k = {}; {threads} threads",
        filter.layout(),
        args.fpp,
        filter.memory_bytes() as f64 / (1 << 20) as f64,
        filter.num_hashes()
    );

    let bar = spinner("deduplicating");
    let (new, secs) = dedup(urls, distinct, &bar, |url| filter.insert(url));
    bar.finish_and_clear();
    let mutex = MutexFilter::new(PlainBlocked::new(truly_distinct.max(1), args.fpp));
    let bar = spinner("same work behind a Mutex");
    let (_, mutex_secs) = dedup(urls, distinct, &bar, |url| {
        mutex.lock().is_ok_and(|mut f| f.insert(url))
    });
    bar.finish_and_clear();

    // The bulk build: the same requests into a new filter on every core, as
    // a batch loader builds one to save; the same bits as the shared build.
    let mut bulk = AtomicBloom::builder()
        .capacity(truly_distinct.max(1), args.fpp)
        .layout(args.layout)
        .build()
        .context("invalid filter parameters")?;
    let start = Instant::now();
    bulk.par_extend((0..urls).into_par_iter().map_init(
        || String::with_capacity(64),
        |buf, i| atomic_bloom::Bytes(url(buf, page(i, distinct)).as_bytes().to_vec()),
    ));
    let bulk_secs = start.elapsed().as_secs_f64();
    anyhow::ensure!(
        bulk == filter,
        "the bulk build's bits differ from the shared build's"
    );

    // False positives: URLs of pages no request named.
    let mut buf = String::new();
    let probes = 1_000_000u64;
    let false_positives = (distinct..distinct + probes)
        .filter(|&id| filter.contains(url(&mut buf, id)))
        .count();
    let measured = false_positives as f64 / probes as f64;
    let missed = (truly_distinct as u64).saturating_sub(new);
    say!(
        "new URLs: {new} reported, {truly_distinct} true; {missed} new URLs taken for repeats ({:.3}%, false positives during the crawl)",
        100.0 * missed as f64 / truly_distinct as f64
    );
    say!(
        "false-positive rate: {measured:.3e} on {probes} URLs never seen (target {:e}, {:.2}x of it)",
        args.fpp,
        measured / args.fpp
    );
    // On a workload too small to keep the cores busy, the Mutex can win.
    let against_mutex = mutex_secs / secs;
    say!(
        "throughput: {:.1} M URLs/s on {threads} threads; the same behind a Mutex: {:.1} M URLs/s ({})",
        urls as f64 / secs / 1e6,
        urls as f64 / mutex_secs / 1e6,
        if against_mutex >= 1.0 {
            format!("{against_mutex:.1}x slower")
        } else {
            format!("{:.1}x faster", 1.0 / against_mutex)
        }
    );
    say!(
        "bulk build (par_extend into a new filter): {:.1} M URLs/s on {threads} threads, the same bits as the shared build",
        urls as f64 / bulk_secs / 1e6
    );
    Ok(())
}

/// A spinner on stderr, drawn only when stderr is a terminal.
fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_message(what.to_string());
    bar
}
