//! # pyarrow string and binary arrays, read through their buffers
//!
//! An Arrow string or binary array keeps its values end to end in one data
//! buffer, and an offsets buffer says where each starts: value `i` is
//! `data[offsets[i]..offsets[i + 1]]`, offsets 32-bit for `string` and
//! `binary`, 64-bit for `large_string` and `large_binary` (the Arrow
//! columnar format, "Variable-size Binary Layout":
//! <https://arrow.apache.org/docs/format/Columnar.html#variable-size-binary-layout>).
//!
//! A bulk call reads such an array a chunk at a time: with the GIL held it
//! copies the chunk's offsets and the bytes they span out of the two
//! buffers (two copies, through `memoryview`, as the stable ABI before
//! 3.11 has no buffer protocol), then hashes each value's bytes with the
//! GIL released. No Python object is made per key, and each key hashes as
//! the `str` or `bytes` it is (`to_pylist()` gives them), since both are
//! hashed as their bytes.
//!
//! Offsets come from the array, which may have been assembled from raw
//! buffers (`pa.Array.from_buffers`) and be malformed: an offset that runs
//! backwards or past the data raises `ValueError`, never reads out of
//! bounds.

use atomic_bloom::Bytes;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyList, PyMemoryView, PySlice};
use std::hash::BuildHasher;

/// A pyarrow `Array` or `ChunkedArray` of `string`, `binary`,
/// `large_string` or `large_binary` values, with no nulls.
pub struct ArrowBytes<'py> {
    arrays: Vec<BinaryArray<'py>>,
}

/// One array (a chunk of a `ChunkedArray`).
struct BinaryArray<'py> {
    offsets: Bound<'py, PyMemoryView>,
    /// `None` where pyarrow has no data buffer (every value empty).
    data: Option<Bound<'py, PyMemoryView>>,
    /// The array's first value, in its buffers (a slice starts past 0).
    first: usize,
    len: usize,
    /// Bytes per offset: 4 or 8.
    width: usize,
}

impl<'py> ArrowBytes<'py> {
    /// `keys`, a pyarrow array, if it holds strings or binaries and no
    /// null (a null is no key: such arrays are read by `to_pylist`, which
    /// gives `None` for it, and raise).
    pub fn extract(keys: &Bound<'py, PyAny>) -> PyResult<Option<Self>> {
        let py = keys.py();
        let width = match &*keys.getattr(intern!(py, "type"))?.str()?.to_cow()? {
            "string" | "binary" => 4,
            "large_string" | "large_binary" => 8,
            _ => return Ok(None),
        };
        let nulls: usize = keys.getattr(intern!(py, "null_count"))?.extract()?;
        if nulls > 0 {
            return Ok(None);
        }
        let arrays = if keys.hasattr(intern!(py, "chunks"))? {
            keys.getattr(intern!(py, "chunks"))?
                .cast_into::<PyList>()?
                .iter()
                .collect()
        } else {
            vec![keys.clone()]
        };
        let arrays = arrays
            .iter()
            .map(|array| BinaryArray::of(array, width))
            .collect::<PyResult<_>>()?;
        Ok(Some(ArrowBytes { arrays }))
    }

    /// Runs `work` on the hashes of each chunk of up to `chunk` keys, in
    /// order, hashing and working with the GIL released; signals are
    /// checked between chunks.
    pub fn for_each_chunk<S: BuildHasher + Sync, T: Send>(
        &self,
        chunk: usize,
        hasher: &S,
        mut work: impl FnMut(&[u64]) -> PyResult<T> + Send,
    ) -> PyResult<Vec<T>> {
        let mut hashes = Vec::with_capacity(chunk);
        let mut results = Vec::new();
        for array in &self.arrays {
            let py = array.offsets.py();
            for start in (0..array.len).step_by(chunk) {
                let (offsets, data) = array.copy(start, (start + chunk).min(array.len))?;
                results.push(py.detach(|| {
                    hashes.clear();
                    for pair in offsets.windows(2) {
                        let value = data
                            .get(pair[0] - offsets[0]..pair[1] - offsets[0])
                            .ok_or_else(malformed)?;
                        hashes.push(hasher.hash_one(Bytes(value)));
                    }
                    work(&hashes)
                })?);
                py.check_signals()?;
            }
        }
        Ok(results)
    }
}

impl<'py> BinaryArray<'py> {
    fn of(array: &Bound<'py, PyAny>, width: usize) -> PyResult<Self> {
        let py = array.py();
        let buffers = array.call_method0(intern!(py, "buffers"))?;
        let view = |index: usize| -> PyResult<Option<Bound<'py, PyMemoryView>>> {
            let buffer = buffers.get_item(index)?;
            if buffer.is_none() {
                Ok(None)
            } else {
                PyMemoryView::from(&buffer).map(Some)
            }
        };
        Ok(BinaryArray {
            offsets: view(1)?.ok_or_else(malformed)?,
            data: view(2)?,
            first: array.getattr(intern!(py, "offset"))?.extract()?,
            len: array.len()?,
            width,
        })
    }

    /// The offsets of values `start..end` (one more than values), and the
    /// bytes from the first's start to the last's end; every offset checked
    /// to run forwards within those bytes.
    fn copy(&self, start: usize, end: usize) -> PyResult<(Vec<usize>, PyBackedBytes)> {
        let first = self.first + start;
        let raw = copy_bytes(
            &self.offsets,
            first * self.width,
            (first + end - start + 1) * self.width,
        )?;
        let offsets: Vec<usize> = raw
            .chunks_exact(self.width)
            .map(|offset| match *offset {
                [a, b, c, d] => usize::try_from(i32::from_ne_bytes([a, b, c, d])).ok(),
                [a, b, c, d, e, f, g, h] => {
                    usize::try_from(i64::from_ne_bytes([a, b, c, d, e, f, g, h])).ok()
                }
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or_else(malformed)?;
        if !offsets.is_sorted() {
            return Err(malformed());
        }
        let (low, high) = (offsets[0], offsets[offsets.len() - 1]);
        let data = match &self.data {
            Some(data) => copy_bytes(data, low, high)?,
            None if low == high => PyBackedBytes::from(PyBytes::new(self.offsets.py(), b"")),
            None => return Err(malformed()),
        };
        Ok((offsets, data))
    }
}

/// Bytes `start..end` of `view` (a buffer of bytes), copied; an error if
/// the buffer is shorter.
fn copy_bytes(view: &Bound<'_, PyMemoryView>, start: usize, end: usize) -> PyResult<PyBackedBytes> {
    let py = view.py();
    let slice = PySlice::new(py, start as isize, end as isize, 1);
    let bytes = view
        .get_item(slice)?
        .call_method0(intern!(py, "tobytes"))?
        .cast_into::<PyBytes>()?;
    if bytes.as_bytes().len() != end - start {
        return Err(malformed());
    }
    Ok(PyBackedBytes::from(bytes))
}

fn malformed() -> PyErr {
    PyValueError::new_err("a malformed Arrow array: its offsets run backwards or past its data")
}
