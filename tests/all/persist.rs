//! The file format: round trips through every path, a distinct error for
//! each kind of bad input, atomic saves, and writes racing inserts.

use crate::common;

use atomic_bloom::{
    AtomicBloom, AtomicCountingBloom, AtomicGrowableBloom, BitArray, FORMAT_VERSION, FilterKind,
    Layout, MAGIC, MAX_BITS, ReadError, SavedFilter,
};
use std::hash::BuildHasherDefault;
use std::hash::DefaultHasher;

fn sample(layout: Layout, seed: u64) -> AtomicBloom {
    common::filled(layout, 5_000, 0.01, seed)
}

/// The custom hasher of these tests.
type Sip = BuildHasherDefault<DefaultHasher>;

/// A filter hashed with [`Sip`] holding `key`, and its bytes.
fn custom_filter(key: &str) -> (AtomicBloom<Sip>, Vec<u8>) {
    let f = AtomicBloom::builder()
        .bits(8192, 5)
        .hasher(Sip::default())
        .build()
        .unwrap();
    f.insert(key);
    let bytes = f.to_bytes().unwrap();
    (f, bytes)
}

#[test]
fn round_trips_through_bytes_streams_and_files() {
    let dir = tempfile::tempdir().unwrap();
    for layout in Layout::ALL {
        for seed in [0, 0xDEAD_BEEF] {
            let f = sample(layout, seed);
            let bytes = f.to_bytes().unwrap();
            assert_eq!(&bytes[..8], &MAGIC);
            assert_eq!(bytes.len() as u64, 48 + f.num_bits() / 8);
            let from_bytes = AtomicBloom::from_bytes(&bytes).unwrap();
            let from_stream = AtomicBloom::read_from(bytes.as_slice()).unwrap();
            let path = dir.path().join(format!("{layout}-{seed}.bloom"));
            f.save(&path).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
            let from_file = AtomicBloom::load(&path).unwrap();
            for back in [from_bytes, from_stream, from_file] {
                assert_eq!(back, f);
                assert_eq!(back.hasher().seed(), seed);
                assert!((0..5_000u64).all(|i| back.contains(&i)));
            }
        }
    }
}

#[test]
fn each_kind_of_damage_has_its_own_error() {
    let good = sample(Layout::Blocked, 1).to_bytes().unwrap();
    let with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        edit(&mut bytes);
        AtomicBloom::from_bytes(&bytes).unwrap_err()
    };
    // A header field overwritten and the checksum recomputed: the header
    // checks, not the checksum, must reject it.
    let forged = |at: usize, field: &[u8]| {
        with(&|b| {
            b[at..at + field.len()].copy_from_slice(field);
            common::reseal(b)
        })
    };
    assert!(matches!(with(&|b| b[0] = b'X'), ReadError::BadMagic));
    assert!(matches!(
        forged(8, &[9, 0]),
        ReadError::UnsupportedVersion(9)
    ));
    // Ids 0 to 7 are placements (`docs::format`): the first one past them.
    let unknown = 8;
    assert!(matches!(forged(10, &[unknown]), ReadError::UnknownLayout(id) if id == unknown));
    assert!(matches!(forged(11, &[200]), ReadError::UnknownHasher(200)));
    // k of 0 and above the maximum.
    for k in [0u32, 65] {
        assert!(
            matches!(
                forged(12, &k.to_le_bytes()),
                ReadError::InvalidParameters(_)
            ),
            "k = {k}"
        );
    }
    // m of zero and above the maximum.
    for m in [0, MAX_BITS + 512, u64::MAX] {
        let err = forged(16, &m.to_le_bytes());
        assert!(
            matches!(err, ReadError::InvalidParameters(_)),
            "m = {m}: {err}"
        );
    }
    // m not a whole block: said as such, not as a size out of range.
    let err = forged(16, &(512u64 * 3 + 64).to_le_bytes());
    assert!(
        matches!(
            err,
            ReadError::UnalignedBits {
                num_bits: 1600,
                layout: Layout::Blocked,
                granule: 512
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("not a multiple of 512"), "{err}");
    // A valid but huge m: the input is too short for it, said before any allocation.
    let err = forged(16, &MAX_BITS.to_le_bytes());
    assert!(
        matches!(err, ReadError::Truncated { expected, .. } if expected == MAX_BITS / 8 + 48),
        "{err}"
    );
    for len in [0, 7, 39, 40, 41, good.len() - 9, good.len() - 1] {
        let err = with(&|b| b.truncate(len));
        assert!(
            matches!(err, ReadError::Truncated { .. }),
            "len {len}: {err}"
        );
        assert!(err.to_string().starts_with("truncated"));
    }
    assert!(matches!(
        with(&|b| b.push(0)),
        ReadError::TrailingBytes { .. }
    ));
    let body_flip = with(&|b| b[100] ^= 0x10);
    assert!(matches!(body_flip, ReadError::ChecksumMismatch { .. }));
    let checksum_flip = with(&|b| *b.last_mut().unwrap() ^= 1);
    assert!(matches!(checksum_flip, ReadError::ChecksumMismatch { .. }));
    // A different seed recorded with the old fingerprint: caught.
    assert!(matches!(
        forged(24, &[good[24] ^ 1]),
        ReadError::FingerprintMismatch { .. }
    ));
    // Plain filters are written in version 1, the newest this build reads
    // being 3 (counting filters: `tests/all/persist_counting.rs`; shared
    // files, version 3: `tests/all/shared.rs`).
    assert_eq!(u16::from_le_bytes([good[8], good[9]]), 1);
    assert_eq!(FORMAT_VERSION, 3);
    assert!(matches!(
        forged(8, &[4, 0]),
        ReadError::UnsupportedVersion(4)
    ));
}

#[test]
fn streams_and_files_report_the_same_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = sample(Layout::Word, 2).to_bytes().unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", good[..good.len() - 3].to_vec()),
        ("trailing", [good.as_slice(), b"xyz"].concat()),
        ("checksum", {
            let mut b = good.clone();
            b[60] ^= 1;
            b
        }),
        (
            "magic",
            b"definitely not a bloom filter at all, no".to_vec(),
        ),
        // Shorter than a header: not a filter, or a filter cut short.
        ("short text", b"hello\n".to_vec()),
        ("short header", good[..20].to_vec()),
    ];
    for (what, bytes) in cases {
        let errors = common::every_reader::<BitArray>(dir.path(), what, &bytes);
        for err in &errors {
            let same = std::mem::discriminant(err) == std::mem::discriminant(&errors[0]);
            assert!(same, "{what}: {errors:?}");
        }
        match what {
            "short text" => assert!(matches!(errors[0], ReadError::BadMagic), "{errors:?}"),
            "short header" => assert!(matches!(errors[0], ReadError::Truncated { .. })),
            _ => {}
        }
    }
}

#[test]
fn custom_hashers_are_recorded_and_checked() {
    let (_, bytes) = custom_filter("custom");
    assert_eq!(bytes[11], 0, "hasher id: custom");
    // Not readable as a wyhash filter, whatever its seed says.
    assert!(matches!(
        AtomicBloom::from_bytes(&bytes),
        Err(ReadError::HasherMismatch { .. })
    ));
    assert!(
        AtomicBloom::from_bytes_with_hasher(&bytes, Sip::default())
            .unwrap()
            .contains("custom")
    );
    // And a wyhash filter is not readable with another hasher.
    let wy = sample(Layout::Standard, 0).to_bytes().unwrap();
    assert!(matches!(
        AtomicBloom::from_bytes_with_hasher(&wy, Sip::default()),
        Err(ReadError::HasherMismatch { .. })
    ));
}

/// A damaged byte anywhere the checksum covers is a checksum mismatch in
/// every reader: the header's meaning (hasher, seed, fingerprint, k) is
/// read only once the checksum has vouched for it. (The file loader once
/// reported a damaged seed as another hasher.)
#[test]
fn every_reader_reports_damage_under_the_checksum_as_a_checksum_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let good = sample(Layout::Blocked, 5).to_bytes().unwrap();
    // hasher id, k, seed (low and high byte), fingerprint, a body byte
    for at in [11, 12, 24, 31, 32, 39, 41] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x04;
        for err in common::every_reader::<BitArray>(dir.path(), &format!("damaged-{at}"), &bytes) {
            assert!(
                matches!(err, ReadError::ChecksumMismatch { .. }),
                "byte {at}: {err}"
            );
        }
    }
}

/// The `*_with_hasher` readers check the header's hasher id and seed, not
/// only the fingerprint, so that what they read writes back byte for byte.
#[test]
fn custom_hasher_readers_check_the_hasher_id_and_seed() {
    use atomic_bloom::HasherId;
    use atomic_bloom::WyBuildHasher;
    let (_, bytes) = custom_filter("k");
    let back = AtomicBloom::from_bytes_with_hasher(&bytes, Sip::default()).unwrap();
    assert_eq!(
        back.to_bytes().unwrap(),
        bytes,
        "written back byte for byte"
    );
    // A custom hasher's file with a seed: no writer makes one.
    let mut seeded = bytes.clone();
    seeded[24] = 9;
    common::reseal(&mut seeded);
    let err = AtomicBloom::from_bytes_with_hasher(&seeded, Sip::default()).unwrap_err();
    assert!(matches!(err, ReadError::CustomHasherSeed(9)), "{err}");

    // A default-hasher file read with `*_with_hasher`: only the same seed.
    let wy = sample(Layout::Word, 5).to_bytes().unwrap();
    let back = AtomicBloom::from_bytes_with_hasher(&wy, WyBuildHasher::with_seed(5)).unwrap();
    assert_eq!(back.to_bytes().unwrap(), wy);
    let err = AtomicBloom::from_bytes_with_hasher(&wy, WyBuildHasher::with_seed(6)).unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::HasherMismatch {
                written: HasherId::Default { seed: 5 },
                reading: HasherId::Default { seed: 6 },
            }
        ),
        "{err}"
    );
    // The same file relabelled as a custom hasher's, resealed: refused by
    // a wyhash reader as a custom file, whatever its fingerprint says.
    let mut relabelled = wy.clone();
    relabelled[11] = 0;
    relabelled[24..32].fill(0);
    common::reseal(&mut relabelled);
    let err =
        AtomicBloom::from_bytes_with_hasher(&relabelled, WyBuildHasher::with_seed(5)).unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::HasherMismatch {
                written: HasherId::Custom,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("*_with_hasher"), "{err}");
}

/// An I/O error is the `source` of the error, not repeated in its message,
/// so a printed chain says it once; a file's error names the file.
#[test]
fn io_errors_are_the_source_not_repeated() {
    use std::error::Error;
    let dir = tempfile::tempdir().unwrap();
    let err = AtomicBloom::load(dir.path()).unwrap_err();
    assert!(matches!(err, ReadError::File { .. }), "{err}");
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
    let source = err
        .source()
        .expect("the I/O error is the source")
        .to_string();
    assert!(!err.to_string().contains(&source), "{err} repeats {source}");
}

/// A reader polling the path while a writer saves two different filters in
/// turn only ever sees one of them whole: the rename is atomic, so no load
/// sees a half-written file.
#[test]
fn saves_replace_the_file_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.bloom");
    let (a, b) = (sample(Layout::Blocked, 10), sample(Layout::Blocked, 11));
    a.save(&path).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..50 {
                if i % 2 == 0 {
                    b.save(&path).unwrap()
                } else {
                    a.save(&path).unwrap()
                }
            }
        });
        for _ in 0..200 {
            let seen = AtomicBloom::load(&path).unwrap();
            assert!(seen == a || seen == b);
        }
    });
    // No temporary files are left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_failed_save_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kept.bloom");
    let old = sample(Layout::Word, 3);
    old.save(&path).unwrap();
    // Saving to a path whose parent is a file fails before touching `path`.
    let blocked = dir.path().join("kept.bloom").join("child");
    assert!(sample(Layout::Word, 4).save(&blocked).is_err());
    assert_eq!(AtomicBloom::load(&path).unwrap(), old);
}

/// A save into a directory that does not exist, or that takes no new file,
/// fails with the OS's own error, its code kept (what the Python package
/// reports as `errno`), and writes nothing.
#[cfg(unix)]
#[test]
fn a_save_that_cannot_create_its_file_is_the_os_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("f.bloom");
    let err = sample(Layout::Blocked, 1).save(&path).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound, "{err}");
    assert_eq!(err.raw_os_error(), Some(2), "{err}"); // ENOENT
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // So is a directory that exists but takes no new file (Linux's /proc).
    #[cfg(target_os = "linux")]
    {
        let err = sample(Layout::Blocked, 1)
            .save("/proc/atomic-bloom-test.bloom")
            .unwrap_err();
        assert!(err.raw_os_error().is_some(), "{err}");
        assert!(!err.to_string().contains(".tmp"), "{err}");
    }
}

/// A save onto a directory is refused with an error of kind
/// `IsADirectory`, and leaves the directory as it was. On Unix it is the
/// OS's own error (`EISDIR`), its code kept like any other.
#[test]
fn a_save_onto_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = sample(Layout::Blocked, 1).save(dir.path()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::IsADirectory, "{err}");
    #[cfg(target_os = "linux")]
    assert_eq!(err.raw_os_error(), Some(21), "{err}"); // EISDIR
    assert!(dir.path().is_dir());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Writing while another thread inserts: the bytes are a valid filter
/// holding every key inserted before the write began.
#[test]
fn writes_racing_inserts_are_valid_snapshots() {
    let f = AtomicBloom::new(400_000, 0.01).unwrap();
    for i in 0..100_000u64 {
        f.insert(&i);
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 100_000..400_000u64 {
                f.insert(&i);
            }
        });
        for _ in 0..20 {
            let snapshot = AtomicBloom::from_bytes(&f.to_bytes().unwrap()).unwrap();
            assert!((0..100_000u64).step_by(7).all(|i| snapshot.contains(&i)));
        }
    });
}

#[cfg(feature = "serde")]
#[test]
fn serde_uses_the_validated_format() {
    let f = sample(Layout::Standard, 5);
    let json = serde_json::to_string(&f).unwrap();
    let back: AtomicBloom = serde_json::from_str(&json).unwrap();
    assert_eq!(back, f);
    // A damaged byte fails validation, with the format's own message.
    let mut bytes: Vec<u8> = serde_json::from_str(&json).unwrap();
    bytes[70] ^= 4;
    let err =
        serde_json::from_str::<AtomicBloom>(&serde_json::to_string(&bytes).unwrap()).unwrap_err();
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
}

/// A save keeps the permissions of the file it replaces, and gives a new
/// file those of a data file (0644), not the temporary file's 0600.
#[cfg(unix)]
#[test]
fn saves_keep_the_replaced_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let f = sample(Layout::Blocked, 1);
    let fresh = dir.path().join("fresh.bloom");
    f.save(&fresh).unwrap();
    assert_eq!(mode(&fresh), 0o644);
    let private = dir.path().join("private.bloom");
    std::fs::write(&private, b"old").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    f.save(&private).unwrap();
    assert_eq!(mode(&private), 0o600);
    assert_eq!(AtomicBloom::load(&private).unwrap(), f);
}

/// One filter of each kind, each holding a few keys, and its bytes.
fn one_of_each_kind() -> Vec<(SavedFilter, Vec<u8>)> {
    let plain = sample(Layout::Blocked, 7);
    let counting = AtomicCountingBloom::new(1_000, 0.01).unwrap();
    let growable = AtomicGrowableBloom::new(100, 0.01).unwrap();
    for key in 0..500u64 {
        counting.insert(&key);
        growable.insert(&key).unwrap();
    }
    [
        SavedFilter::Bloom(plain),
        SavedFilter::Counting(counting),
        SavedFilter::Growable(growable),
    ]
    .into_iter()
    .map(|filter| {
        let mut bytes = Vec::new();
        filter.write_to(&mut bytes).unwrap();
        (filter, bytes)
    })
    .collect()
}

/// A reader of any kind gives back each kind as it was written, from
/// bytes, a stream and a file, and reports a bad file as the kind's own
/// reader would.
#[test]
fn a_saved_filter_of_any_kind_reads_back_as_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    for (filter, bytes) in one_of_each_kind() {
        let path = dir.path().join("any.abf");
        std::fs::write(&path, &bytes).unwrap();
        for read in [
            SavedFilter::from_bytes(&bytes),
            SavedFilter::read_from(bytes.as_slice()),
            SavedFilter::load(&path),
        ] {
            assert_eq!(read.unwrap(), filter);
        }
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 1);
        assert!(matches!(
            SavedFilter::read_from(cut.as_slice()),
            Err(ReadError::Truncated { .. })
        ));
    }
    assert!(matches!(
        SavedFilter::from_bytes(b"not a filter at all"),
        Err(ReadError::BadMagic)
    ));
    assert!(matches!(
        SavedFilter::load(dir.path().join("missing")),
        Err(ReadError::File { .. })
    ));
}

/// A FIFO has no length and can be read once: every kind's `load`, and
/// the reader of any kind, read it as a stream, as `save` writes one.
#[cfg(unix)]
#[test]
fn a_filter_loads_from_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("filter.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    // Each load opens the FIFO once, while a thread writes the bytes into it.
    let through_fifo = |bytes: &[u8], load: &dyn Fn() -> SavedFilter| {
        let writer = {
            let (fifo, bytes) = (fifo.clone(), bytes.to_vec());
            std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
        };
        let read = load();
        writer.join().unwrap();
        read
    };
    for (filter, bytes) in one_of_each_kind() {
        let by_kind = through_fifo(&bytes, &|| match filter.kind() {
            FilterKind::Bloom => SavedFilter::Bloom(AtomicBloom::load(&fifo).unwrap()),
            FilterKind::Counting => {
                SavedFilter::Counting(AtomicCountingBloom::load(&fifo).unwrap())
            }
            _ => SavedFilter::Growable(AtomicGrowableBloom::load(&fifo).unwrap()),
        });
        assert_eq!(by_kind, filter);
        let any = through_fifo(&bytes, &|| SavedFilter::load(&fifo).unwrap());
        assert_eq!(any, filter);
    }
}
