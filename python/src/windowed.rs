//! # `WindowedBloomFilter`: the keys of a recent window, for Python
//!
//! A `frozen` class around an `AtomicWindowedBloom`, built like
//! [`crate::bloom`]'s: `&self` methods (insert, query and rotate from any
//! thread at once), the GIL released in bulk calls, the library's format
//! for saving and pickling (a time window resumes its schedule).

use crate::errors::build_error;
use crate::params::{count, parse_layout, parse_seed, within};
use atomic_bloom::{AtomicWindowedBloom, MAX_GENERATIONS, WhenFull, Window, WyBuildHasher};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use std::time::Duration;

/// A Bloom filter of the keys added within a window: the last
/// `expected_items` keys, or (with `window`) the keys of the last `window`
/// seconds, about `expected_items` of which arrive in it. Older keys
/// leave, so it never fills: for stream deduplication, rate limits and
/// re-crawl schedules in services that never stop.
///
/// The window is kept in `generations` filters: a key stays at least the
/// window and at most `generations / (generations - 1)` of it, and the
/// rate holds when every generation is full. Many threads add, query and
/// rotate at once, without a lock.
#[pyclass(module = "atomic_bloom", name = "WindowedBloomFilter", frozen)]
pub struct WindowedBloomFilter {
    inner: AtomicWindowedBloom,
}

/// A window given in seconds (`int` or `float`) or as a
/// `datetime.timedelta`, as a positive duration.
fn duration(window: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let py = window.py();
    let seconds: f64 = if window.hasattr(intern!(py, "total_seconds"))? {
        window
            .call_method0(intern!(py, "total_seconds"))?
            .extract()?
    } else {
        window.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "window must be seconds (int or float) or a datetime.timedelta, not {}",
                window
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".into(), |n| n.to_string())
            ))
        })?
    };
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(PyValueError::new_err(format!(
            "window must be a positive, finite number of seconds, got {seconds}"
        ))),
    }
}

filter_methods!(
    WindowedBloomFilter(AtomicWindowedBloom),
    "a windowed filter",
    {
        #[new]
        #[pyo3(signature = (
        expected_items,
        false_positive_rate = 0.01,
        *,
        window = None,
        generations = 4,
        when_full = "rotate",
        layout = None,
        seed = 0,
    ))]
        #[allow(clippy::too_many_arguments)] // Python keyword arguments
        fn new(
            expected_items: i128,
            false_positive_rate: f64,
            window: Option<&Bound<'_, PyAny>>,
            generations: i128,
            when_full: &str,
            layout: Option<&str>,
            seed: i128,
        ) -> PyResult<Self> {
            let keys = count("expected_items", expected_items)?;
            let window = match window {
                None => Window::Keys(keys as u64),
                Some(window) => Window::Duration(duration(window)?),
            };
            let when_full = match when_full {
                "rotate" => WhenFull::Rotate,
                "keep-filling" => WhenFull::KeepFilling,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "when_full must be \"rotate\" or \"keep-filling\", got {other:?}"
                    )));
                }
            };
            AtomicWindowedBloom::builder()
                .capacity(keys, false_positive_rate)
                .window(window)
                .generations(within(
                    "generations",
                    generations,
                    2,
                    MAX_GENERATIONS.into(),
                )?)
                .when_full(when_full)
                .layout(parse_layout(layout)?)
                .hasher(WyBuildHasher::with_seed(parse_seed(seed)?))
                .build()
                .map(Self::wrap)
                .map_err(build_error)
        }

        /// Adds `key` to the current generation, so that it stays a whole
        /// window from now; returns whether it was absent from the whole
        /// window: False once seen within it, which is what deduplication
        /// asks.
        fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
            crate::adds::add(&self.inner, key)
        }

        /// Adds every key of an iterable, with the GIL released while keys are
        /// inserted (on every core when there are many); returns how many were
        /// absent from the window. Every key is taken and checked
        /// first: a bad key or an error from the iterable raises with nothing
        /// added.
        fn add_many(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<usize> {
            crate::adds::add_many(py, &self.inner, keys)
        }

        /// Starts a new generation now, retiring the oldest (its keys leave);
        /// returns False if it could not yet (another thread's rotation won,
        /// or an add that began before the spare generation was retired is
        /// still writing to it).
        fn rotate(&self) -> bool {
            self.inner.rotate()
        }

        /// About how many keys the window holds: the adds each live
        /// generation reported new (a key in two generations counts twice).
        fn estimated_len(&self) -> u64 {
            self.inner.estimated_len().unwrap_or(0)
        }

        /// New keys per second into the current generation since it began
        /// (`None` until time has passed in it): to compare with what a time
        /// window was built for.
        fn keys_per_second(&self) -> Option<f64> {
            self.inner.keys_per_second()
        }

        /// The window: a number of keys (int) or of seconds (float).
        #[getter]
        fn window(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
            Ok(match self.inner.window() {
                Window::Duration(d) => d.as_secs_f64().into_pyobject(py)?.into_any().unbind(),
                Window::Keys(n) => n.into_pyobject(py)?.into_any().unbind(),
                _ => py.None(),
            })
        }

        /// Generations the window is kept in.
        #[getter]
        fn generations(&self) -> u32 {
            self.inner.generations()
        }

        /// Rotations so far.
        #[getter]
        fn rotations(&self) -> u64 {
            self.inner.rotations()
        }

        /// New keys each generation is sized for.
        #[getter]
        fn keys_per_generation(&self) -> u64 {
            self.inner.keys_per_generation()
        }

        /// The rate the window was built for, over all its generations.
        #[getter]
        fn false_positive_rate(&self) -> f64 {
            self.inner.target_false_positive_rate()
        }

        /// "rotate" or "keep-filling": what a time window does with a
        /// generation that fills before its time.
        #[getter]
        fn when_full(&self) -> &'static str {
            match self.inner.when_full() {
                WhenFull::KeepFilling => "keep-filling",
                _ => "rotate",
            }
        }

        /// Generations of a time window that filled before their time: keys
        /// arrive faster than it was built for.
        #[getter]
        fn generations_filled_early(&self) -> u64 {
            self.inner.generations_filled_early()
        }

        /// Bytes of memory the generations take, the spare included.
        #[getter]
        fn memory_bytes(&self) -> usize {
            self.inner.memory_bytes()
        }

        fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
            // The window as the constructor takes it: seconds, or (none given)
            // the last `expected_items` keys.
            let window = match self.inner.window() {
                Window::Duration(d) => crate::methods::py_float(py, d.as_secs_f64())?,
                Window::Keys(n) => format!("'last {n} keys'"),
                _ => "None".to_string(),
            };
            Ok(crate::methods::repr(
                "WindowedBloomFilter",
                &[
                    ("window", window),
                    ("generations", self.inner.generations().to_string()),
                    ("rotations", self.inner.rotations().to_string()),
                ],
                self.inner.layout(),
                self.inner.hasher().seed(),
            ))
        }
    }
);
