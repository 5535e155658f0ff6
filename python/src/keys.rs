//! # Keys: from Python objects to the library's key encoding
//!
//! A filter built in Python must answer like one built from the same keys
//! by the CLI or by Rust, so every Python key maps onto one of the
//! library's two stable encodings (its `docs::keys` chapter):
//!
//! | Python key | hashed as | same key as, in Rust |
//! |---|---|---|
//! | `str` | its UTF-8 bytes, by the byte encoding | `insert(s)`; a CLI line |
//! | `bytes`, `bytearray`, `memoryview` | the bytes, by the byte encoding | `insert(b)` |
//! | `int` in `-2**63 .. 2**64 - 1` | its 64-bit two's complement, little-endian, no length | `insert(&(n as u64))`, `insert(&(n as i64))` |
//! | another integer type (`numpy.int64`, anything with `__index__`) | as the `int` it converts to | as that `int` |
//!
//! So `"abc"`, `b"abc"`, `bytearray(b"abc")` and `memoryview(b"abc")` are
//! one key, and an int is never the same key as any bytes. Like Rust's
//! `-1i64` and `u64::MAX`, the ints `-1` and `2**64 - 1` share their 64
//! bits and so are one key. Other ints raise `OverflowError`, and other
//! types `TypeError`. An integer of another type is the `int` that
//! `operator.index` makes of it, as everywhere Python takes an integer: a
//! key read from a NumPy array is the same key as the `int` of that value.
//!
//! A bulk call given a one-dimensional buffer of integers (a NumPy
//! integer array, `array.array`, `bytes`; not a subclass, whose iteration
//! may differ) reads its values a chunk at a time ([`IntBuffer`]): the
//! keys iterating it gives, without a Python object per key. A pandas
//! column of integers or objects is read through its NumPy array
//! ([`ReadAs::PandasValues`]), and a pyarrow array of integers, strings or
//! binaries, whose iteration gives no keys, as its values
//! ([`ReadAs::ArrowValues`]).
//!
//! Bulk calls hash short keys with the GIL held and release it to insert
//! or look up a chunk of hashes ([`for_each_chunk`]), on a helper thread
//! while the next chunk is taken ([`Order::Pipelined`]) or on every core
//! once every key is taken ([`spread_keys_first`]). Long keys are hashed
//! after the release, so they must outlive it without the interpreter:
//! `str` and `bytes` are immutable and are borrowed (a reference keeps
//! them alive); `bytearray` and `memoryview` can change under another
//! thread and are copied first.

use crate::arrow::ArrowBytes;
use atomic_bloom::Bytes;
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{
    IntoPyDict, PyByteArray, PyBytes, PyDict, PyInt, PyIterator, PyList, PyMemoryView, PyRange,
    PySet, PySlice, PyString, PyTuple,
};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The types a key may have, for error messages and the stubs.
pub const ACCEPTED: &str =
    "str, bytes, bytearray, memoryview or int (or an integer type such as numpy.int64)";

/// A key taken from a Python object, ready to hash with or without the
/// interpreter.
pub enum Key {
    /// A `str`'s UTF-8 bytes, borrowed.
    Str(PyBackedStr),
    /// A bytes-like object's bytes.
    Bytes(Buffer),
    /// An `int`, as its 64-bit two's complement.
    Int(u64),
}

impl Key {
    /// Takes the key from `object`, or says why it cannot be one.
    ///
    /// Exact `str`, `int` and `bytes` are tried first, by comparing type
    /// pointers: the usual keys then cost no call into the interpreter to
    /// learn their type (a subclass check is a call on the stable ABI).
    #[inline]
    pub fn extract(object: Bound<'_, PyAny>) -> PyResult<Key> {
        if object.is_exact_instance_of::<PyString>() || object.is_instance_of::<PyString>() {
            let s = object.cast_into::<PyString>()?;
            Ok(Key::Str(PyBackedStr::try_from(s)?))
        } else if object.is_exact_instance_of::<PyInt>() {
            int_key(&object).map(Key::Int)
        } else if let Some(bytes) = Buffer::extract(&object)? {
            Ok(Key::Bytes(bytes))
        } else if object.is_instance_of::<PyInt>()
            || object
                .get_type()
                .hasattr(intern!(object.py(), "__index__"))?
        {
            int_key(&object).map(Key::Int)
        } else {
            Err(not_a_key(&object))
        }
    }
}

/// The `TypeError` for `object`, which is none of the key types.
fn not_a_key(object: &Bound<'_, PyAny>) -> PyErr {
    match object.get_type().name() {
        Ok(name) => PyTypeError::new_err(format!("a key must be {ACCEPTED}, not {name}")),
        Err(error) => error,
    }
}

/// The library's encodings: a `str` or bytes-like key as
/// [`Bytes`] (its length, then its bytes), an int as its 8 bytes.
impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Key::Str(s) => Bytes(s.as_bytes()).hash(state),
            Key::Bytes(b) => Bytes(&b[..]).hash(state),
            Key::Int(n) => n.hash(state),
        }
    }
}

/// The bytes of a bytes-like object, readable without the interpreter.
pub enum Buffer {
    /// A `bytes` object's bytes, borrowed: they cannot change.
    Borrowed(PyBackedBytes),
    /// A `bytearray`'s or `memoryview`'s bytes, copied: they could.
    Copied(Vec<u8>),
}

impl Buffer {
    /// The bytes of `object` if it is `bytes`, `bytearray` or `memoryview`.
    pub fn extract(object: &Bound<'_, PyAny>) -> PyResult<Option<Buffer>> {
        Ok(if let Ok(b) = object.cast::<PyBytes>() {
            Some(Buffer::Borrowed(PyBackedBytes::from(b.clone())))
        } else if let Ok(b) = object.cast::<PyByteArray>() {
            Some(Buffer::Copied(b.to_vec()))
        } else if object.is_instance_of::<PyMemoryView>() {
            // The buffer protocol is not in the stable ABI before 3.11:
            // `tobytes()` copies the view's bytes in C order.
            let copy = object.call_method0("tobytes")?;
            Some(Buffer::Copied(copy.cast::<PyBytes>()?.as_bytes().to_vec()))
        } else {
            None
        })
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buffer::Borrowed(b) => b,
            Buffer::Copied(b) => b,
        }
    }
}

/// An int key's 64 bits: unsigned if it fits, else two's complement. An
/// object of another type is converted by its `__index__` (pyo3 calls
/// `PyNumber_Index`); one whose `__index__` refuses (`numpy.bool_`) is not
/// a key.
fn int_key(object: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = object.py();
    let refused = |error: PyErr| {
        if error.is_instance_of::<PyOverflowError>(py) {
            PyOverflowError::new_err("an int key must fit in 64 bits: between -2**63 and 2**64 - 1")
        } else {
            // The `__index__` error stays visible as the cause.
            let not_a_key = not_a_key(object);
            not_a_key.set_cause(py, Some(error));
            not_a_key
        }
    };
    match object.extract::<u64>() {
        Ok(n) => Ok(n),
        Err(error) if !error.is_instance_of::<PyOverflowError>(py) => Err(refused(error)),
        // Negative, or past 64 bits.
        Err(_) => object.extract::<i64>().map(|n| n as u64).map_err(refused),
    }
}

/// The hash of `object` as a key, computed now, with the GIL held.
///
/// Exact `str` is read in place, with no reference kept: the common key
/// costs a type-pointer comparison, the UTF-8 view CPython caches, and
/// the hash. (`to_cow` borrows that view; only a wheel built for 3.9,
/// whose stable ABI cannot reach it, copies the UTF-8 out first.)
#[inline]
pub fn hash_now<S: BuildHasher>(object: &Bound<'_, PyAny>, hasher: &S) -> PyResult<u64> {
    if let Ok(s) = object.cast_exact::<PyString>() {
        return Ok(hasher.hash_one(Bytes(s.to_cow()?.as_bytes())));
    }
    Ok(hasher.hash_one(Key::extract(object.clone())?))
}

/// Keys longer than this (in bytes) are hashed after the GIL is released;
/// shorter ones before.
///
/// Hashing a short key costs a few nanoseconds, less than keeping a
/// reference to it across the release and dropping that afterwards (about
/// twice as long for 31-byte `str` keys). A long key's hash costs more than
/// its reference, so it runs where other Python threads can run beside it.
pub const DEFERRED_KEY_BYTES: usize = 256;

/// One chunk of a bulk call's keys, as hashes: short keys hashed while the
/// GIL was held, long ones kept (borrowed or copied) to hash after.
pub struct HashChunk {
    hashes: Vec<u64>,
    /// Long keys and the slot of `hashes` each one's hash goes in.
    deferred: Vec<(usize, Key)>,
}

impl HashChunk {
    /// Keys per chunk. When threads share the GIL, each release hands it
    /// to a waiting thread, and taking it back means waiting to be woken
    /// (tens of microseconds on a VM), so a chunk must take far longer
    /// than that: 32768 keys take about half a millisecond with the GIL
    /// held. With 4096 keys, two threads ran `contains_many` slower than
    /// one (`python python/bench/peers.py`, its 2-thread rows); with 32768
    /// the hashes (256 KiB) still fit the L2 cache.
    pub const KEYS: usize = 32768;

    fn new() -> Self {
        HashChunk {
            hashes: Vec::with_capacity(Self::KEYS),
            deferred: Vec::new(),
        }
    }

    /// Adds `object`'s key, hashed now if it is short.
    // Always inlined: LLVM kept it out of line, a call per key, in the
    // bulk calls `python python/bench/peers.py` measures.
    #[inline(always)]
    fn push<S: BuildHasher>(&mut self, object: Bound<'_, PyAny>, hasher: &S) -> PyResult<()> {
        // The common key, an exact `str`, is type-tested and read once.
        if let Ok(s) = object.cast_exact::<PyString>() {
            let utf8 = s.to_cow()?;
            if utf8.len() <= DEFERRED_KEY_BYTES {
                self.hashes.push(hasher.hash_one(Bytes(utf8.as_bytes())));
                return Ok(());
            }
        } else if !object
            .cast_exact::<PyBytes>()
            .is_ok_and(|b| b.as_bytes().len() > DEFERRED_KEY_BYTES)
        {
            self.hashes.push(hasher.hash_one(Key::extract(object)?));
            return Ok(());
        }
        self.deferred
            .push((self.hashes.len(), Key::extract(object)?));
        self.hashes.push(0);
        Ok(())
    }

    /// Hashes the long keys: the part of the chunk's hashing that runs
    /// without the GIL.
    fn hash_deferred<S: BuildHasher>(&mut self, hasher: &S) -> &[u64] {
        for (slot, key) in &self.deferred {
            self.hashes[*slot] = hasher.hash_one(key);
        }
        &self.hashes
    }

    fn clear(&mut self) {
        self.hashes.clear();
        self.deferred.clear();
    }

    /// Takes up to [`KEYS`](Self::KEYS) more keys from `iter`; returns the
    /// error of a bad key or of the iterable, which ends the chunk.
    fn fill<S: BuildHasher>(
        &mut self,
        iter: &mut Bound<'_, PyIterator>,
        hasher: &S,
    ) -> Option<PyErr> {
        for object in iter.by_ref().take(Self::KEYS - self.hashes.len()) {
            if let Err(error) = object.and_then(|object| self.push(object, hasher)) {
                return Some(error);
            }
        }
        None
    }

    /// Whether the chunk holds [`KEYS`](Self::KEYS) keys, so that the keys
    /// may go on.
    fn is_full(&self) -> bool {
        self.hashes.len() == Self::KEYS
    }
}

/// When a bulk call's work starts, relative to taking its keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each chunk is worked on as soon as its keys are taken: for queries,
    /// which change nothing, so a bad key may stop them anywhere.
    Pipelined,
    /// Every key is taken and hashed before any is worked on: for calls
    /// that change the filter. A bad key (`None` in a pandas column, a
    /// float) raises with the filter unchanged, so the caller can fix the
    /// input and call again without adding a counting filter's keys twice
    /// or removing some twice. Costs 8 bytes per key for the hashes.
    KeysFirst,
}

/// Runs `work` on the hashes of every chunk of `keys` (any iterable), in
/// `order`, with the GIL released during each call; returns the results in
/// order.
///
/// A chunk's deferred keys hold references, dropped when the next chunk
/// starts, with the GIL held: dropping a reference without it would queue
/// the decrement for later.
pub fn for_each_chunk<S: BuildHasher + Sync, T: Send>(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    hasher: &S,
    order: Order,
    mut work: impl FnMut(&[u64]) -> T + Send,
) -> PyResult<Vec<T>> {
    try_for_each_chunk(py, keys, hasher, order, |hashes| Ok(work(hashes)))
}

/// A one-dimensional buffer of integers (a NumPy integer array, an
/// `array.array`): its keys are its values, the keys iterating it
/// gives, read a chunk at a time with one copy instead of one Python
/// object per key.
struct IntBuffer<'py> {
    view: Bound<'py, PyMemoryView>,
    len: usize,
    format: IntFormat,
}

/// How a buffer's integers are stored.
#[derive(Clone, Copy)]
struct IntFormat {
    /// Bytes per value: 1, 2, 4 or 8.
    width: usize,
    signed: bool,
    order: ByteOrder,
}

#[derive(Clone, Copy)]
enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    const NATIVE: ByteOrder = if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };
}

impl<'py> IntBuffer<'py> {
    /// `keys`, an object of a [buffer type](ReadAs::Buffer), as a buffer
    /// of integers, or `None` if it holds other values or more dimensions
    /// (then its keys are taken one by one).
    fn extract(keys: &Bound<'py, PyAny>) -> PyResult<Option<Self>> {
        let Ok(view) = PyMemoryView::from(keys) else {
            return Ok(None);
        };
        let ndim: usize = view.getattr(intern!(keys.py(), "ndim"))?.extract()?;
        let width: usize = view.getattr(intern!(keys.py(), "itemsize"))?.extract()?;
        let format: String = view.getattr(intern!(keys.py(), "format"))?.extract()?;
        // struct-module format: an optional byte order, then one letter.
        let (order, letter) = match format.as_bytes() {
            [letter] | [b'@' | b'=', letter] => (ByteOrder::NATIVE, *letter),
            [b'<', letter] => (ByteOrder::Little, *letter),
            [b'>' | b'!', letter] => (ByteOrder::Big, *letter),
            _ => return Ok(None),
        };
        let signed = match letter {
            b'b' | b'h' | b'i' | b'l' | b'q' | b'n' => true,
            b'B' | b'H' | b'I' | b'L' | b'Q' | b'N' => false,
            _ => return Ok(None),
        };
        if ndim != 1 || ![1, 2, 4, 8].contains(&width) {
            return Ok(None);
        }
        let len = view.len()?;
        Ok(Some(IntBuffer {
            view,
            len,
            format: IntFormat {
                width,
                signed,
                order,
            },
        }))
    }

    /// Values `start..end`, copied out of the buffer.
    fn copy(&self, start: usize, end: usize) -> PyResult<PyBackedBytes> {
        let py = self.view.py();
        let slice = PySlice::new(py, start as isize, end as isize, 1);
        let bytes = self
            .view
            .get_item(slice)?
            .call_method0(intern!(py, "tobytes"))?;
        Ok(PyBackedBytes::from(bytes.cast_into::<PyBytes>()?))
    }

    /// [`try_for_each_chunk`] over the buffer's values.
    fn for_each_chunk<S: BuildHasher + Sync, T: Send>(
        &self,
        hasher: &S,
        mut work: impl FnMut(&[u64]) -> PyResult<T> + Send,
    ) -> PyResult<Vec<T>> {
        let py = self.view.py();
        let mut hashes = Vec::with_capacity(HashChunk::KEYS.min(self.len));
        let mut results = Vec::new();
        let format = self.format;
        for start in (0..self.len).step_by(HashChunk::KEYS) {
            let bytes = self.copy(start, (start + HashChunk::KEYS).min(self.len))?;
            results.push(py.detach(|| {
                hashes.clear();
                // A `u64` hashes as `Key::Int` does.
                hashes.extend(format.values(&bytes).map(|value| hasher.hash_one(value)));
                work(&hashes)
            })?);
            py.check_signals()?;
        }
        Ok(results)
    }
}

/// How a bulk call reads its keys, by their container's type.
enum ReadAs {
    /// One Python object per key, from the iterable.
    Objects,
    /// A type whose buffer holds exactly the values its iteration gives:
    /// exact `bytes`, `bytearray`, `memoryview`, `array.array` and
    /// `numpy.ndarray`. Not a subclass, which may iterate otherwise: a
    /// `numpy.ma.MaskedArray`'s buffer holds a value under each mask, where
    /// its iteration gives `masked`, which is not a key.
    Buffer,
    /// A pandas `Series` or `Index` whose `to_numpy()` holds the values its
    /// iteration gives: read through that array. (Its own iteration makes
    /// each value anew in Python, two to four times slower.)
    ///
    /// Those are the NumPy dtypes of integers and of objects, and pandas'
    /// string dtype, whose array holds its strings and missing values as
    /// they iterate. Not other dtypes, whose arrays may hold other values:
    /// a `Series` of bools iterates as Python `bool`, which is a key, its
    /// array as `numpy.bool_`, which is not; an `Int64` column with a
    /// missing value becomes an array of floats, a categorical column of
    /// ints with one, floats too.
    PandasValues,
    /// A pandas `Series` or `Index` whose values are Arrow data: pandas'
    /// string dtype stored by pyarrow, or an `ArrowDtype` of integers,
    /// strings or binaries. Read as the pyarrow array `__arrow_array__`
    /// gives ([`ReadAs::ArrowValues`]), which is the column's own data.
    PandasArrow,
    /// A pyarrow `Array` or `ChunkedArray` of integers, strings or binary
    /// values (or a dictionary encoding of them): its keys are its values,
    /// as `to_pylist()` gives them.
    /// Iterating it gives pyarrow scalars, which are not keys (only integer
    /// ones convert, by `__index__`, several times slower than reading the
    /// values). Read through `to_numpy()`,
    /// which holds those values (integers as a buffer, strings and binaries
    /// as objects); an array with nulls through `to_pylist()`, since
    /// `to_numpy()` turns integers with nulls into floats. A null is not a
    /// key, as `None` is not.
    ArrowValues,
}

/// Whether the values of a pyarrow type are keys: integers, strings and
/// binaries, or a dictionary encoding of one of those (whose `to_numpy()`
/// and `to_pylist()` give the values, decoded).
fn is_arrow_key_type(arrow_type: &Bound<'_, PyAny>) -> PyResult<bool> {
    let name = arrow_type.str()?;
    let name = name.to_cow()?;
    if name.starts_with("dictionary<") {
        return is_arrow_key_type(&arrow_type.getattr(intern!(arrow_type.py(), "value_type"))?);
    }
    Ok(matches!(
        &*name,
        "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
            | "string"
            | "large_string"
            | "string_view"
            | "binary"
            | "large_binary"
            | "binary_view"
    ) || name.starts_with("fixed_size_binary["))
}

impl ReadAs {
    /// How to read `keys`. The usual iterables are told by a type-pointer
    /// comparison each, and iterators (generators among them) by one
    /// attribute lookup, before the type's name is read: asking every
    /// object for a buffer would cost a `memoryview` call whose failure
    /// costs more than a short `add_many` itself (`python -m timeit -s
    /// "g = iter(())" "try: memoryview(g)" "except TypeError: pass"`).
    fn of(keys: &Bound<'_, PyAny>) -> PyResult<ReadAs> {
        let py = keys.py();
        if keys.is_exact_instance_of::<PyList>()
            || keys.is_exact_instance_of::<PyTuple>()
            || keys.is_exact_instance_of::<PySet>()
            || keys.is_exact_instance_of::<PyDict>()
            || keys.is_exact_instance_of::<PyRange>()
            || keys.is_instance_of::<PyString>()
        {
            return Ok(ReadAs::Objects);
        }
        if keys.is_exact_instance_of::<PyBytes>()
            || keys.is_exact_instance_of::<PyByteArray>()
            || keys.is_exact_instance_of::<PyMemoryView>()
        {
            return Ok(ReadAs::Buffer);
        }
        let class = keys.get_type();
        if class.hasattr(intern!(py, "__next__"))? {
            return Ok(ReadAs::Objects);
        }
        let (module, name) = (class.module()?, class.qualname()?);
        Ok(match (&*module.to_cow()?, &*name.to_cow()?) {
            ("array", "array") | ("numpy", "ndarray") => ReadAs::Buffer,
            ("pyarrow.lib", name) if name.ends_with("Array") => {
                if is_arrow_key_type(&keys.getattr(intern!(py, "type"))?)? {
                    ReadAs::ArrowValues
                } else {
                    ReadAs::Objects
                }
            }
            // `pandas` from pandas 3 on, `pandas.core.series` before.
            (module, "Series" | "Index") if module.split('.').next() == Some("pandas") => {
                let dtype = keys.getattr(intern!(py, "dtype"))?;
                let dtype_class = dtype.get_type();
                let kind = dtype.getattr(intern!(py, "kind"))?;
                let numpy = dtype_class.module()?.to_cow()?.starts_with("numpy");
                match (numpy, &*kind.extract::<PyBackedStr>()?) {
                    (true, "i" | "u" | "O") => ReadAs::PandasValues,
                    (false, _) if dtype_class.qualname()?.to_cow()? == "StringDtype" => {
                        let storage = dtype.getattr(intern!(py, "storage"))?;
                        if storage.str()?.to_cow()?.starts_with("pyarrow") {
                            ReadAs::PandasArrow
                        } else {
                            ReadAs::PandasValues
                        }
                    }
                    (false, _)
                        if dtype_class.qualname()?.to_cow()? == "ArrowDtype"
                            && is_arrow_key_type(
                                &dtype.getattr(intern!(py, "pyarrow_dtype"))?,
                            )? =>
                    {
                        ReadAs::PandasArrow
                    }
                    _ => ReadAs::Objects,
                }
            }
            _ => ReadAs::Objects,
        })
    }
}

impl IntFormat {
    /// Each value of `bytes` as the 64 bits an `int` key of it has.
    fn values(self, bytes: &[u8]) -> impl Iterator<Item = u64> {
        let IntFormat {
            width,
            signed,
            order,
        } = self;
        bytes.chunks_exact(width).map(move |value| {
            // The value in the low bytes of a zeroed word.
            let mut word = [0u8; 8];
            let unsigned = match order {
                ByteOrder::Little => {
                    word[..width].copy_from_slice(value);
                    u64::from_le_bytes(word)
                }
                ByteOrder::Big => {
                    word[8 - width..].copy_from_slice(value);
                    u64::from_be_bytes(word)
                }
            };
            // Sign-extend from the value's width, as the `int` it is.
            let shift = 64 - 8 * width as u32;
            if signed {
                (((unsigned << shift) as i64) >> shift) as u64
            } else {
                unsigned
            }
        })
    }
}

/// Runs `work` on every chunk of `keys`' hashes, in `order`; the first
/// error (of `work`, of a key, of the iterable) stops it.
///
/// Pipelined, an object that is not a key, or an iterable that raises,
/// stops the call with that error after the keys before it are worked on,
/// and not a whole chunk fewer. Keys first, it stops the call before any
/// key is worked on. A buffer of integers holds no bad key, and is read a
/// chunk at a time either way.
///
/// Pipelined, keys of more than one chunk are worked on by a helper
/// thread while this one, with the GIL, takes the next chunk: taking keys
/// (iterating, reading each `str`, hashing) and working on them (a query
/// or a new filter's inserts) then run on two cores at once. The
/// helper gets chunks in order, so results keep the keys' order. A call
/// of one chunk, or on one core, runs on the calling thread.
///
/// Signals are checked after each chunk, so Ctrl-C stops a long call with
/// `KeyboardInterrupt` (the interpreter runs its handlers only between
/// bytecodes, and iterating a list or a range, or reading a buffer, runs
/// none), with the chunks before it worked on: keys first, that is nothing
/// while keys are still being taken.
pub fn try_for_each_chunk<S: BuildHasher + Sync, T: Send>(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    hasher: &S,
    order: Order,
    mut work: impl FnMut(&[u64]) -> PyResult<T> + Send,
) -> PyResult<Vec<T>> {
    let mut iter = match KeySource::of(keys)? {
        KeySource::Ints(ints) => return ints.for_each_chunk(hasher, work),
        KeySource::Arrow(values) => return values.for_each_chunk(HashChunk::KEYS, hasher, work),
        KeySource::Objects(iter) => iter,
    };
    if order == Order::Pipelined {
        return pipelined(py, iter, hasher, work);
    }
    let hashes = all_hashes(py, &mut iter, hasher)?;
    let mut results = Vec::new();
    for chunk in hashes.chunks(HashChunk::KEYS) {
        results.push(py.detach(|| work(chunk))?);
        py.check_signals()?;
    }
    Ok(results)
}

/// Keys first (every key is taken and checked before any is worked on),
/// then `work` on each chunk of their hashes, the chunks spread over the
/// machine's cores with the GIL released: for the inserts of a filter
/// that other threads may see, whose atomic writes cost more than taking
/// the keys did, so one Python thread's `add_many` uses every core.
/// Results are in the chunks' order. A call of one chunk, or on one core,
/// runs on the calling thread, as [`try_for_each_chunk`] does.
pub fn spread_keys_first<S: BuildHasher + Sync, T: Send>(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    hasher: &S,
    work: impl Fn(&[u64]) -> T + Sync,
) -> PyResult<Vec<T>> {
    let call = BulkCall::enter();
    let mut hashes = Vec::new();
    let mut keep = |chunk: &[u64]| {
        hashes.extend_from_slice(chunk);
        Ok(())
    };
    match KeySource::of(keys)? {
        KeySource::Ints(ints) => drop(ints.for_each_chunk(hasher, &mut keep)?),
        KeySource::Arrow(values) => {
            drop(values.for_each_chunk(HashChunk::KEYS, hasher, &mut keep)?)
        }
        KeySource::Objects(mut iter) => hashes = all_hashes(py, &mut iter, hasher)?,
    }
    let chunks: Vec<&[u64]> = hashes.chunks(HashChunk::KEYS).collect();
    let threads = call.threads().min(chunks.len());
    if threads <= 1 {
        let mut results = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            results.push(py.detach(|| work(chunk)));
            py.check_signals()?;
        }
        return Ok(results);
    }
    // Rounds of a few chunks a thread, signals checked between them (a
    // round of 1M keys takes milliseconds; starting its threads, tens of
    // microseconds). In a round, contiguous groups of chunks, one per
    // thread; this thread works on the first.
    let mut results = Vec::with_capacity(chunks.len());
    for round in chunks.chunks(threads * SPREAD_CHUNKS_PER_ROUND) {
        let per_thread = round.len().div_ceil(threads);
        let worked = py.detach(|| {
            std::thread::scope(|scope| {
                let work = &work;
                let mut groups = round.chunks(per_thread);
                let own = groups.next().unwrap_or_default();
                let helpers: Vec<_> = groups
                    .map(|group| {
                        scope.spawn(move || group.iter().map(|c| work(c)).collect::<Vec<T>>())
                    })
                    .collect();
                let mut worked: Vec<T> = own.iter().map(|c| work(c)).collect();
                for helper in helpers {
                    match helper.join() {
                        Ok(theirs) => worked.extend(theirs),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
                worked
            })
        });
        results.extend(worked);
        py.check_signals()?;
    }
    Ok(results)
}

/// Chunks each thread works on in a round of [`spread_keys_first`].
const SPREAD_CHUNKS_PER_ROUND: usize = 8;

/// The cores this process may run on (1 if unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Bulk calls in progress in this process, on any thread.
static BULK_CALLS: AtomicUsize = AtomicUsize::new(0);

/// A bulk call in progress, counted in [`BULK_CALLS`] while it lives.
///
/// One Python thread's bulk call keeps every core busy: it takes keys with
/// the GIL on its own thread while helpers work on the chunks taken. Two
/// such calls at once would run twice the threads the cores can take, and
/// contend for them and the GIL (two threads' `add_many` ran slower than
/// one thread doing all the keys: `python python/bench/peers.py`). So
/// only a call that starts while no other is in progress spreads; one that
/// starts beside another works on its chunks on its own thread, with the
/// GIL released, while the other thread takes keys: the Python threads are
/// then what uses the cores.
pub struct BulkCall {
    alone: bool,
}

impl BulkCall {
    /// Counts a bulk call in, until the value is dropped.
    pub fn enter() -> BulkCall {
        // ORDERING: Relaxed; a count that decides how many threads a call
        // starts, publishing nothing: a call that misses another's entry
        // spreads beside it, costing speed, never a result.
        let before = BULK_CALLS.fetch_add(1, Ordering::Relaxed);
        BulkCall { alone: before == 0 }
    }

    /// Threads this call may work on: every core if it is the only bulk
    /// call in progress, else its own.
    pub fn threads(&self) -> usize {
        if self.alone { cores() } else { 1 }
    }
}

/// Whether another bulk call is in progress (a call starting now would not
/// be alone).
pub fn bulk_calls_in_progress() -> bool {
    // ORDERING: Relaxed, as in `BulkCall::enter`.
    BULK_CALLS.load(Ordering::Relaxed) > 0
}

impl Drop for BulkCall {
    fn drop(&mut self) {
        // ORDERING: Relaxed, as in `enter`.
        BULK_CALLS.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Where a bulk call's keys come from.
enum KeySource<'py> {
    /// A buffer of integers, read a chunk at a time.
    Ints(IntBuffer<'py>),
    /// A pyarrow array of strings or binaries, read through its buffers.
    Arrow(ArrowBytes<'py>),
    /// One Python object per key.
    Objects(Bound<'py, PyIterator>),
}

impl<'py> KeySource<'py> {
    /// How to read `keys` ([`ReadAs`]): through a buffer of integers where
    /// the container has one, else by iterating it (or the values it
    /// converts to).
    fn of(keys: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = keys.py();
        // A str, bytes or bytearray is one key, though it iterates as
        // characters or integers: given as a batch it is a mistake
        // (`add_many("abc")` meant `add("abc")` or `add_many(["abc"])`).
        if keys.is_instance_of::<PyString>()
            || keys.is_instance_of::<PyBytes>()
            || keys.is_instance_of::<PyByteArray>()
        {
            return Err(PyTypeError::new_err(format!(
                "expected an iterable of keys, not a single {} (one key: use add(key); \
                 several: pass a list)",
                keys.get_type().name()?
            )));
        }
        let (read_as, arrow);
        let keys = match ReadAs::of(keys)? {
            ReadAs::PandasArrow => {
                // pandas' documented interchange with pyarrow: the column's
                // own Arrow data, not a copy. With a missing value, read as
                // pandas iterates it (giving `pd.NA`, which is no key), so
                // that the error names what the caller's data holds.
                arrow = keys
                    .getattr(intern!(py, "array"))?
                    .call_method0(intern!(py, "__arrow_array__"))?;
                let nulls: usize = arrow.getattr(intern!(py, "null_count"))?.extract()?;
                if nulls == 0 {
                    read_as = ReadAs::ArrowValues;
                    &arrow
                } else {
                    read_as = ReadAs::PandasValues;
                    keys
                }
            }
            other => {
                read_as = other;
                keys
            }
        };
        if matches!(read_as, ReadAs::ArrowValues)
            && let Some(values) = ArrowBytes::extract(keys)?
        {
            return Ok(KeySource::Arrow(values));
        }
        let keys = match read_as {
            ReadAs::PandasValues => keys.call_method0(intern!(py, "to_numpy"))?,
            ReadAs::ArrowValues => {
                let nulls: usize = keys.getattr(intern!(py, "null_count"))?.extract()?;
                if nulls > 0 {
                    keys.call_method0(intern!(py, "to_pylist"))?
                } else if keys.get_type().qualname()?.to_cow()? == "ChunkedArray" {
                    // A chunked array's `to_numpy` copies anyway, and takes
                    // `zero_copy_only` only since pyarrow 13 (apache/arrow
                    // pull request 35582).
                    keys.call_method0(intern!(py, "to_numpy"))?
                } else {
                    let copy = [(intern!(py, "zero_copy_only"), false)].into_py_dict(py)?;
                    keys.call_method(intern!(py, "to_numpy"), (), Some(&copy))?
                }
            }
            ReadAs::Objects | ReadAs::Buffer | ReadAs::PandasArrow => keys.clone(),
        };
        if !matches!(read_as, ReadAs::Objects)
            && let Some(ints) = IntBuffer::extract(&keys)?
        {
            return Ok(KeySource::Ints(ints));
        }
        keys.try_iter().map(KeySource::Objects)
    }
}

/// Every key's hash, taken with the GIL held; the first bad key or error
/// of the iterable stops it. Long keys are hashed now too, so that no
/// reference outlives its chunk.
fn all_hashes<S: BuildHasher>(
    py: Python<'_>,
    iter: &mut Bound<'_, PyIterator>,
    hasher: &S,
) -> PyResult<Vec<u64>> {
    let mut chunk = HashChunk::new();
    let mut hashes = Vec::new();
    loop {
        chunk.clear();
        if let Some(error) = chunk.fill(iter, hasher) {
            return Err(error);
        }
        if chunk.hashes.is_empty() {
            return Ok(hashes);
        }
        hashes.extend_from_slice(chunk.hash_deferred(hasher));
        py.check_signals()?;
    }
}

/// [`try_for_each_chunk`], pipelined.
fn pipelined<S: BuildHasher + Sync, T: Send>(
    py: Python<'_>,
    mut iter: Bound<'_, PyIterator>,
    hasher: &S,
    mut work: impl FnMut(&[u64]) -> PyResult<T> + Send,
) -> PyResult<Vec<T>> {
    let call = BulkCall::enter();
    let mut results = Vec::new();
    let mut chunk = HashChunk::new();
    let stopped = chunk.fill(&mut iter, hasher);
    if stopped.is_some() || !chunk.is_full() || call.threads() == 1 {
        // One chunk (or one core): no helper.
        let mut stopped = stopped;
        loop {
            if chunk.hashes.is_empty() {
                return stopped.map_or(Ok(results), Err);
            }
            let worked = &mut chunk;
            results.push(py.detach(|| work(worked.hash_deferred(hasher)))?);
            if let Some(error) = stopped {
                return Err(error);
            }
            py.check_signals()?;
            chunk.clear();
            stopped = chunk.fill(&mut iter, hasher);
        }
    }
    std::thread::scope(|scope| {
        let (to_helper, inbox) = std::sync::mpsc::channel::<HashChunk>();
        let (to_caller, mut outbox) = std::sync::mpsc::channel::<(HashChunk, PyResult<T>)>();
        scope.spawn(move || {
            for mut chunk in inbox {
                let result = work(chunk.hash_deferred(hasher));
                // The caller drains this channel before it returns.
                let _ = to_caller.send((chunk, result));
            }
        });
        // Two chunks circulate: the helper works on one while this thread
        // fills the other.
        let mut spare = Some(HashChunk::new());
        let mut next = chunk;
        let outcome: PyResult<()> = loop {
            let last = !next.is_full();
            if !next.hashes.is_empty() {
                // The helper outlives this loop: the channel is open.
                let _ = to_helper.send(next);
            }
            if last {
                break Ok(());
            }
            if let Err(error) = py.check_signals() {
                break Err(error);
            }
            next = match spare.take() {
                Some(chunk) => chunk,
                None => match py.detach({
                    let outbox = &mut outbox;
                    move || outbox.recv()
                }) {
                    Ok((mut chunk, result)) => {
                        match result {
                            Ok(result) => results.push(result),
                            Err(error) => break Err(error),
                        }
                        // With the GIL held: drops the long keys' references.
                        chunk.clear();
                        chunk
                    }
                    // The helper panicked; the scope's join says so.
                    Err(_) => break Ok(()),
                },
            };
            if let Some(error) = next.fill(&mut iter, hasher) {
                if !next.hashes.is_empty() {
                    let _ = to_helper.send(next);
                }
                break Err(error);
            }
        };
        drop(to_helper);
        let rest: Vec<_> = py.detach(move || outbox.into_iter().collect());
        let mut outcome = outcome;
        for (chunk, result) in rest {
            drop(chunk);
            match result {
                Ok(result) if outcome.is_ok() => results.push(result),
                Ok(_) => {}
                Err(error) => outcome = outcome.and(Err(error)),
            }
        }
        outcome.map(|()| results)
    })
}
