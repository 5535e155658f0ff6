//! The concurrency contract with real threads (more threads than cores).
//! The interleavings themselves are model-checked in `loom-tests/`.

use atomic_bloom::{AtomicBloom, Layout};
use std::sync::Barrier;

const THREADS: u64 = 8;

fn build(layout: Layout) -> AtomicBloom {
    AtomicBloom::builder()
        .capacity(200_000, 0.01)
        .layout(layout)
        .build()
        .unwrap()
}

/// Concurrent writes converge to one state: the bits after overlapping
/// parallel inserts equal, word for word, those of a sequential build.
#[test]
fn parallel_inserts_equal_the_sequential_build() {
    for layout in Layout::ALL {
        let shared = build(layout);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let shared = &shared;
                // Overlapping ranges: each key is inserted by two threads.
                s.spawn(move || {
                    for i in (t * 25_000)..((t + 2) * 25_000) {
                        shared.insert(&i);
                    }
                });
            }
        });
        let sequential = build(layout);
        for i in 0..(THREADS + 1) * 25_000 {
            sequential.insert(&i);
        }
        assert!(shared.words().eq(sequential.words()), "{layout}");
    }
}

/// With the `Word` layout, of N threads racing to insert the same new key,
/// exactly one is told it inserted it.
#[test]
fn word_layout_insert_is_a_test_and_set() {
    let filter = build(Layout::Word);
    let barrier = Barrier::new(THREADS as usize);
    for key in 0..2_000u64 {
        // A key that is already a false positive has no winner.
        let expected = usize::from(!filter.contains(&key));
        let winners: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        filter.insert(&key) as usize
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(winners, expected, "key {key}");
    }
}
