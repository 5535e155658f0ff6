//! # The builder
//!
//! [`Builder`] chooses a filter's size, layout and hasher, then builds it.
//! Its cell type `C` is the kind it builds: `AtomicBloom::builder()` gives
//! a `Builder<BitArray>`, `AtomicCountingBloom::builder()` a
//! `Builder<CounterArray>`, and `build` returns that kind, so a builder
//! cannot build a kind other than the one it came from.

use crate::core::cells::Cells;
use crate::core::filter::{DEFAULT_FALSE_POSITIVE_RATE, Filter};
use crate::error::BuildError;
use crate::hasher::WyBuildHasher;
use crate::key::Key;
use crate::layout::Layout;
use crate::sizing::Sizing;
use std::hash::BuildHasher;
use std::marker::PhantomData;

/// Configures and builds a filter whose cells are `C`: an
/// [`AtomicBloom`](crate::AtomicBloom) from
/// [`AtomicBloom::builder`](crate::AtomicBloom::builder), an
/// [`AtomicCountingBloom`](crate::AtomicCountingBloom) from
/// [`AtomicCountingBloom::builder`](crate::AtomicCountingBloom::builder).
/// `build` returns that kind with the builder's hasher `S`, so a builder
/// cannot build a kind other than the one it came from:
///
/// ```compile_fail
/// // A counting filter's builder builds a counting filter, never a plain one.
/// let f: atomic_bloom::AtomicBloom =
///     atomic_bloom::AtomicCountingBloom::builder().capacity(10, 0.01).build()?;
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
///
/// A size is required: [`capacity`](Builder::capacity) (items and
/// false-positive rate) or [`bits`](Builder::bits) (bits and hashes). The
/// layout defaults to [`Layout::Blocked`], the hasher to [`WyBuildHasher`]
/// with seed 0.
///
/// ```
/// use atomic_bloom::{AtomicBloom, Layout};
///
/// let filter = AtomicBloom::builder()
///     .capacity(50_000, 1e-4)
///     .layout(Layout::Standard)
///     .seed(0x5eed)
///     .build()?;
/// assert_eq!(filter.num_hashes(), 13);
/// # Ok::<(), atomic_bloom::BuildError>(())
/// ```
#[derive(Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct Builder<C, S = WyBuildHasher> {
    size: Option<Size>,
    layout: Layout,
    hasher: S,
    /// The kind `build` returns; `fn() -> C` so that the builder is `Send`,
    /// `Sync` and `Clone` whatever `C` is.
    kind: PhantomData<fn() -> C>,
}

impl<C, S: Clone> Clone for Builder<C, S> {
    fn clone(&self) -> Self {
        Builder {
            size: self.size,
            layout: self.layout,
            hasher: self.hasher.clone(),
            kind: PhantomData,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Size {
    /// As many items as [`Builder::build_from_iter`] is given.
    Rate {
        false_positive_rate: f64,
    },
    Capacity {
        items: usize,
        false_positive_rate: f64,
    },
    Bits {
        num_bits: u64,
        num_hashes: u32,
    },
}

impl<C> Default for Builder<C> {
    fn default() -> Self {
        Builder {
            size: None,
            layout: Layout::default(),
            hasher: WyBuildHasher::default(),
            kind: PhantomData,
        }
    }
}

impl<C> Builder<C> {
    /// Hash with the default hasher started from `seed` (default 0).
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder().bits(1024, 3).seed(9).build()?;
    /// assert_eq!(f.hasher().seed(), 9);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn seed(self, seed: u64) -> Self {
        self.hasher(WyBuildHasher::with_seed(seed))
    }
}

impl<C, S: BuildHasher> Builder<C, S> {
    /// Size for `items` distinct items at `false_positive_rate`.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder().capacity(1000, 0.01).build()?;
    /// assert!(f.num_bits() >= 9_600);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn capacity(mut self, items: usize, false_positive_rate: f64) -> Self {
        self.size = Some(Size::Capacity {
            items,
            false_positive_rate,
        });
        self
    }

    /// Size for as many items as [`build_from_iter`](Self::build_from_iter)
    /// (or `build_from_par_iter`) is given, at `false_positive_rate`; a
    /// plain [`build`](Self::build) needs a size of its own.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder()
    ///     .false_positive_rate(0.001)
    ///     .build_from_iter(0..10_000u32)?;
    /// assert!(f.sizing().false_positive_rate(10_000) <= 0.001);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn false_positive_rate(mut self, false_positive_rate: f64) -> Self {
        self.size = Some(Size::Rate {
            false_positive_rate,
        });
        self
    }

    /// Size with `num_bits` bits (rounded up to whole words, or whole 512-bit
    /// blocks for `Blocked`) and `num_hashes` bits per key.
    ///
    /// ```
    /// let f = atomic_bloom::AtomicBloom::builder().bits(1000, 5).build()?;
    /// assert_eq!((f.num_bits(), f.num_hashes()), (1024, 5));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn bits(mut self, num_bits: u64, num_hashes: u32) -> Self {
        self.size = Some(Size::Bits {
            num_bits,
            num_hashes,
        });
        self
    }

    /// Where a key's bits go; default [`Layout::Blocked`].
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout};
    /// let f = AtomicBloom::builder().bits(64, 3).layout(Layout::Word).build()?;
    /// assert_eq!(f.layout(), Layout::Word);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Hash keys with `hasher`. Filters are compatible only if their hashers
    /// hash alike; a [`std::hash::RandomState`] differs from every other.
    ///
    /// ```
    /// use std::hash::BuildHasherDefault;
    /// use std::collections::hash_map::DefaultHasher;
    ///
    /// let f = atomic_bloom::AtomicBloom::builder()
    ///     .bits(1024, 4)
    ///     .hasher(BuildHasherDefault::<DefaultHasher>::default())
    ///     .build()?;
    /// f.insert("x");
    /// assert!(f.contains("x"));
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn hasher<T: BuildHasher>(self, hasher: T) -> Builder<C, T> {
        Builder {
            size: self.size,
            layout: self.layout,
            hasher,
            kind: PhantomData,
        }
    }

    /// The sizing the builder's size and layout give; `keys`, when
    /// collecting, is how many keys there are.
    pub(crate) fn sizing_for(&self, keys: Option<usize>) -> Result<Sizing, BuildError> {
        let rate_for = |false_positive_rate| {
            let items = keys.ok_or(BuildError::MissingSize)?.max(1);
            Sizing::for_rate(self.layout, items, false_positive_rate)
        };
        match self.size {
            None if keys.is_some() => rate_for(DEFAULT_FALSE_POSITIVE_RATE),
            None => Err(BuildError::MissingSize),
            Some(Size::Rate {
                false_positive_rate,
            }) => rate_for(false_positive_rate),
            Some(Size::Capacity {
                items,
                false_positive_rate,
            }) => Sizing::for_rate(self.layout, items, false_positive_rate),
            Some(Size::Bits {
                num_bits,
                num_hashes,
            }) => Sizing::for_bits(self.layout, num_bits, num_hashes),
        }
    }

    /// The hasher the filter will have.
    #[cfg(any(feature = "rayon", all(target_os = "linux", not(loom))))]
    pub(crate) fn hasher_ref(&self) -> &S {
        &self.hasher
    }
}

impl<C: Cells, S: BuildHasher> Builder<C, S> {
    /// Validates the parameters and allocates the zeroed cells.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, AtomicCountingBloom, BuildError};
    /// assert_eq!(AtomicBloom::builder().build().unwrap_err(), BuildError::MissingSize);
    /// let counting = AtomicCountingBloom::builder().capacity(1_000, 0.01).build()?;
    /// assert_eq!(counting.sizing(), AtomicBloom::new(1_000, 0.01)?.sizing());
    /// assert_eq!(
    ///     AtomicBloom::builder().capacity(0, 0.01).build().unwrap_err(),
    ///     BuildError::ZeroItems
    /// );
    /// # Ok::<(), BuildError>(())
    /// ```
    pub fn build(self) -> Result<Filter<C, S>, BuildError> {
        self.build_for(None)
    }

    /// Builds the filter; `keys`, when collecting, is how many keys there
    /// are (sizing a [`false_positive_rate`](Self::false_positive_rate)).
    pub(crate) fn build_for(self, keys: Option<usize>) -> Result<Filter<C, S>, BuildError> {
        let sizing = self.sizing_for(keys)?;
        Filter::with_sizing(sizing, self.hasher)
    }

    /// A filter holding every key of `keys`, sized for their number at the
    /// builder's [`false_positive_rate`](Self::false_positive_rate) (by
    /// default [`DEFAULT_FALSE_POSITIVE_RATE`]), or at the builder's own
    /// size if one was given. The keys' hashes are buffered (8 bytes each)
    /// to count them first. Errors as [`build`](Self::build) does.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout};
    /// let urls = ["a.example", "b.example"];
    /// let f = AtomicBloom::builder()
    ///     .false_positive_rate(1e-4)
    ///     .layout(Layout::Word)
    ///     .build_from_iter(urls.map(atomic_bloom::Bytes))?;
    /// assert!(f.contains("b.example"));
    /// assert_eq!(f.layout(), Layout::Word);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn build_from_iter<I>(self, keys: I) -> Result<Filter<C, S>, BuildError>
    where
        I: IntoIterator,
        I::Item: Key,
    {
        let hashes: Vec<u64> = keys
            .into_iter()
            .map(|k| k.hash_with(&self.hasher))
            .collect();
        let filter = self.build_for(Some(hashes.len()))?;
        filter.insert_hash_batch(hashes);
        Ok(filter)
    }
}

/// The constructors of every fixed-size filter, which build through a
/// [`Builder`].
impl<C: Cells> Filter<C> {
    /// A [`Layout::Blocked`] filter for `expected_items` distinct items at
    /// `false_positive_rate`, hashed with [`WyBuildHasher`] seed 0.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, BuildError};
    ///
    /// let f = AtomicBloom::new(10_000, 0.01)?;
    /// assert!(f.insert(&42u64));
    /// assert!(f.contains(&42u64));
    /// assert!(matches!(AtomicBloom::new(10, f64::NAN), Err(BuildError::InvalidFalsePositiveRate(_))));
    /// # Ok::<(), BuildError>(())
    /// ```
    pub fn new(expected_items: usize, false_positive_rate: f64) -> Result<Self, BuildError> {
        Self::builder()
            .capacity(expected_items, false_positive_rate)
            .build()
    }

    /// A [`Layout::Blocked`] filter with `num_bits` bits (rounded up to whole
    /// 512-bit blocks) and `num_hashes` bits per key.
    ///
    /// ```
    /// use atomic_bloom::AtomicBloom;
    /// let f = AtomicBloom::with_bits(1 << 20, 7)?;
    /// assert_eq!(f.memory_bytes(), 1 << 17);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn with_bits(num_bits: u64, num_hashes: u32) -> Result<Self, BuildError> {
        Self::builder().bits(num_bits, num_hashes).build()
    }

    /// A builder for the layout, hasher or seed.
    ///
    /// ```
    /// use atomic_bloom::{AtomicBloom, Layout};
    /// let f = AtomicBloom::builder().capacity(100, 0.1).layout(Layout::Word).build()?;
    /// assert_eq!(f.layout(), Layout::Word);
    /// # Ok::<(), atomic_bloom::BuildError>(())
    /// ```
    pub fn builder() -> Builder<C> {
        Builder::default()
    }
}

/// A [`Layout::Blocked`] filter holding every key, sized for their number at
/// [`DEFAULT_FALSE_POSITIVE_RATE`]: [`Builder::build_from_iter`] with the
/// defaults, which also takes another rate, layout or hasher. Panics only
/// if the allocator refuses.
///
/// ```
/// use atomic_bloom::AtomicBloom;
/// let f: AtomicBloom = (0..1000u32).collect();
/// assert!((0..1000u32).all(|i| f.contains(&i)));
/// ```
impl<T: Key, C: Cells> FromIterator<T> for Filter<C> {
    fn from_iter<I: IntoIterator<Item = T>>(keys: I) -> Self {
        match Filter::builder().build_from_iter(keys) {
            Ok(filter) => filter,
            Err(e) => panic!("collecting into {}: {e}", C::NAME),
        }
    }
}
