//! # Parameters: what both filter classes are built from
//!
//! `(expected_items, false_positive_rate, layout, seed)`, checked here so
//! that every bad value is a `ValueError` that names it, whatever its type
//! allowed (a negative count, a seed past 64 bits).

use atomic_bloom::{Builder, Layout};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The layout a filter gets when none is named: the library's default.
pub const DEFAULT_LAYOUT: &str = "blocked";

/// A builder sized for `expected_items` at `false_positive_rate`.
pub fn builder(
    expected_items: i128,
    false_positive_rate: f64,
    layout: &str,
    seed: i128,
) -> PyResult<Builder> {
    if expected_items < 1 {
        return Err(PyValueError::new_err(format!(
            "expected_items must be at least 1, got {expected_items}"
        )));
    }
    let seed = u64::try_from(seed).map_err(|_| {
        PyValueError::new_err(format!("seed must be between 0 and 2**64 - 1, got {seed}"))
    })?;
    let layout: Layout = layout
        .parse()
        .map_err(|err| PyValueError::new_err(format!("{err}")))?;
    let items = usize::try_from(expected_items).map_err(|_| {
        PyValueError::new_err(format!(
            "expected_items must be at most {}, got {expected_items}",
            usize::MAX
        ))
    })?;
    Ok(Builder::default()
        .capacity(items, false_positive_rate)
        .layout(layout)
        .seed(seed))
}
