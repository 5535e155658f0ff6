//! Guava's own filters, bit for bit: files Guava wrote (`tests/golden/guava-*`,
//! written by `tests/jvm/GuavaFilters.java` with Debian's libguava-java)
//! read here answer every key as Guava's `mightContain` did and write back
//! byte for byte; a filter written here reads in Guava with the same
//! answers (`written_here_reads_in_guava_with_the_same_answers`, which runs
//! Java: CI runs it by name).

use atomic_bloom::{
    AnyFilter, AtomicBloom, GuavaBloom, GuavaStrategy, IncompatibleError, ReadError, SavedFilter,
};
use std::path::PathBuf;

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The keys `GuavaFilters.java` puts into its filter of `funnel`, for `i`.
fn insert(f: &GuavaBloom, funnel: &str, i: u64) -> bool {
    match funnel {
        "strings" => f.insert(format!("guava-{i}").as_str()),
        "longs" => f.insert(&(i as i64 * 7919)),
        _ => f.insert(i.to_string().as_bytes()),
    }
}

/// Which absent keys `f` reports present, as `GuavaFilters.java` prints them.
fn answers(f: &GuavaBloom, funnel: &str) -> String {
    let hits: String = (0..100_000u64)
        .filter(|i| {
            let n = 1_000_000_000_000 + i;
            match funnel {
                "strings" => f.contains(format!("absent-{i}").as_str()),
                "longs" => f.contains(&(n as i64)),
                _ => f.contains(n.to_string().as_bytes()),
            }
        })
        .map(|i| format!(" {i}"))
        .collect();
    format!("{funnel}{hits}\n")
}

#[test]
fn filters_guava_wrote_answer_as_guava_and_write_back_byte_for_byte() {
    for funnel in ["strings", "longs", "bytes"] {
        for (count, percent) in [(1000u64, 3), (20_000, 1)] {
            let name = format!("guava-{funnel}-{count}-p{percent}");
            let bytes = std::fs::read(golden(&format!("{name}.bin"))).unwrap();
            let f = GuavaBloom::from_guava_bytes(&bytes).unwrap();
            assert_eq!(f.strategy(), GuavaStrategy::Murmur128Mitz64, "{name}");
            // Every key Guava put is present: inserting it again sets nothing.
            let copy = f.try_clone().unwrap();
            assert!(
                (0..count).all(|i| !insert(&copy, funnel, i)),
                "{name}: a key is missing"
            );
            assert_eq!(copy, f, "{name}");
            let guava = std::fs::read_to_string(golden(&format!("{name}.answers"))).unwrap();
            assert_eq!(answers(&f, funnel), guava, "{name}");
            assert_eq!(f.to_guava_bytes().unwrap(), bytes, "{name}");
            // Guava's sizing: the same filter built here from the same keys.
            let built = GuavaBloom::new(count, f64::from(percent) / 100.0).unwrap();
            (0..count).for_each(|i| _ = insert(&built, funnel, i));
            assert_eq!(built, f, "{name}");
        }
    }
}

/// `AnyFilter`'s three readers (bytes, a stream, a path) take Guava's
/// files and this crate's, each into its own variant, and name the file
/// of an error.
#[test]
fn any_filter_reads_guavas_files_and_ours_from_bytes_streams_and_paths() {
    let guava_bytes = std::fs::read(golden("guava-strings-1000-p3.bin")).unwrap();
    let guava = AnyFilter::Guava(GuavaBloom::from_guava_bytes(&guava_bytes).unwrap());
    let ours = AtomicBloom::new(1000, 0.01).unwrap();
    ours.insert("k");
    let ours_bytes = ours.to_bytes().unwrap();
    let ours = AnyFilter::Saved(SavedFilter::Bloom(ours));
    let dir = tempfile::tempdir().unwrap();
    for (bytes, filter) in [(&guava_bytes, &guava), (&ours_bytes, &ours)] {
        assert_eq!(&AnyFilter::from_bytes(bytes).unwrap(), filter);
        assert_eq!(&AnyFilter::read_from(bytes.as_slice()).unwrap(), filter);
        let path = dir.path().join("filter");
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(&AnyFilter::load(&path).unwrap(), filter);
    }
    // A stream too short to tell a format, one cut short, a missing file.
    let one_byte = AnyFilter::read_from(&guava_bytes[..1]);
    assert!(matches!(one_byte, Err(ReadError::BadMagic)), "{one_byte:?}");
    assert!(matches!(
        AnyFilter::read_from(&guava_bytes[..20]),
        Err(ReadError::Truncated { .. })
    ));
    let missing = dir.path().join("missing");
    match AnyFilter::load(&missing) {
        Err(ReadError::File { path, .. }) => assert_eq!(path, missing),
        other => panic!("{other:?}"),
    }
}

/// A FIFO can be read once: its first two bytes tell Guava's format, and
/// the reader goes on from them.
#[cfg(unix)]
#[test]
fn any_filter_loads_a_guava_file_from_a_fifo() {
    let bytes = std::fs::read(golden("guava-longs-1000-p3.bin")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("filter.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    let writer = {
        let (fifo, bytes) = (fifo.clone(), bytes.clone());
        std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
    };
    let read = AnyFilter::load(&fifo).unwrap();
    writer.join().unwrap();
    assert_eq!(
        read,
        AnyFilter::Guava(GuavaBloom::from_guava_bytes(&bytes).unwrap())
    );
}

#[test]
fn forged_and_truncated_guava_files_are_refused() {
    let bytes = std::fs::read(golden("guava-strings-1000-p3.bin")).unwrap();
    let read = |b: &[u8]| GuavaBloom::from_guava_bytes(b).unwrap_err();
    assert!(matches!(
        read(&bytes[..bytes.len() - 1]),
        ReadError::Truncated { .. }
    ));
    assert!(matches!(read(&bytes[..3]), ReadError::Truncated { .. }));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(read(&long), ReadError::TrailingBytes { .. }));
    let with = |at: usize, value: &[u8]| {
        let mut forged = bytes.clone();
        forged[at..at + value.len()].copy_from_slice(value);
        read(&forged)
    };
    assert!(matches!(with(0, &[2]), ReadError::UnknownGuavaStrategy(2)));
    assert!(matches!(with(1, &[0]), ReadError::InvalidParameters(_)));
    assert!(matches!(
        with(2, &0i32.to_be_bytes()),
        ReadError::InvalidParameters(_)
    ));
    assert!(matches!(
        with(2, &(-1i32).to_be_bytes()),
        ReadError::InvalidParameters(_)
    ));
    // 2^31 - 1 words declared: refused for the input's length, nothing
    // allocated for it.
    assert!(matches!(
        with(2, &i32::MAX.to_be_bytes()),
        ReadError::Truncated { .. }
    ));
    assert_eq!(
        GuavaBloom::read_guava(&bytes[..])
            .unwrap()
            .to_guava_bytes()
            .unwrap(),
        bytes
    );
}

/// Threads inserting overlapping keys at once build the filter one thread
/// builds, bit for bit.
#[test]
fn racing_threads_lose_no_key() {
    let f = GuavaBloom::new(100_000, 0.01).unwrap();
    std::thread::scope(|s| {
        for t in 0..4i64 {
            let f = &f;
            s.spawn(move || (t * 20_000..t * 20_000 + 40_000).for_each(|k| _ = f.insert(&k)));
        }
    });
    let sequential = GuavaBloom::new(100_000, 0.01).unwrap();
    (0..100_000i64).for_each(|k| _ = sequential.insert(&k));
    assert_eq!(f, sequential);
}

#[test]
fn the_union_of_two_halves_is_the_filter_of_all_and_needs_one_shape() {
    let (a, b, all) = (
        GuavaBloom::new(10_000, 0.01).unwrap(),
        GuavaBloom::new(10_000, 0.01).unwrap(),
        GuavaBloom::new(10_000, 0.01).unwrap(),
    );
    for k in 0..10_000i64 {
        let half = if k % 2 == 0 { &a } else { &b };
        half.insert(&k);
        all.insert(&k);
    }
    a.union(&b).unwrap();
    assert_eq!(a, all);
    let other = |bits, k, strategy| GuavaBloom::with_bits(bits, k, strategy).unwrap();
    let (m, k) = (a.num_bits(), a.num_hashes());
    assert!(matches!(
        a.union(&other(m + 64, k, GuavaStrategy::Murmur128Mitz64)),
        Err(IncompatibleError::NumBits { .. })
    ));
    assert!(matches!(
        a.union(&other(m, k + 1, GuavaStrategy::Murmur128Mitz64)),
        Err(IncompatibleError::NumHashes { .. })
    ));
    assert!(matches!(
        a.union(&other(m, k, GuavaStrategy::Murmur128Mitz32)),
        Err(IncompatibleError::Hasher)
    ));
    assert_eq!(a, all, "a refused union changed the filter");
    for rate in [0.0, 1.0, f64::NAN] {
        assert!(matches!(
            GuavaBloom::new(10, rate),
            Err(atomic_bloom::BuildError::InvalidFalsePositiveRate(_))
        ));
    }
}

/// Runs Java: `GUAVA_JAR` names Guava's jar (Debian's libguava-java:
/// `/usr/share/java/guava.jar`, the default); `.ci/run` installs it.
#[test]
#[ignore = "runs Java with Guava's jar (GUAVA_JAR); CI runs it by name"]
fn written_here_reads_in_guava_with_the_same_answers() {
    let jar = std::env::var("GUAVA_JAR").unwrap_or_else(|_| "/usr/share/java/guava.jar".into());
    let dir = tempfile::tempdir().unwrap();
    let java = crate::java::Java::compile(&jar, "GuavaFilters", dir.path());
    for funnel in ["strings", "longs", "bytes"] {
        for strategy in [
            GuavaStrategy::Murmur128Mitz64,
            GuavaStrategy::Murmur128Mitz32,
        ] {
            let f = GuavaBloom::with_bits(30_000, 6, strategy).unwrap();
            (0..2000).for_each(|i| _ = insert(&f, funnel, i));
            let file = dir.path().join("ours.bin");
            std::fs::write(&file, f.to_guava_bytes().unwrap()).unwrap();
            let guava = java.run(&[
                "answer".as_ref(),
                funnel.as_ref(),
                file.as_os_str(),
                "2000".as_ref(),
            ]);
            assert_eq!(
                guava,
                format!("missing 0\n{}", answers(&f, funnel)),
                "{funnel} {strategy:?}"
            );
        }
    }
}
