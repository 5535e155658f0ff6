//! # Parameters: what the filter classes are built from
//!
//! Counts, seeds, layouts and limits, checked here so that every bad value
//! is a `ValueError` that names it, whatever its Python type allowed (a
//! negative count, a seed past 64 bits). The rates, growth factor and
//! tightening ratio are checked by the library, whose errors name them.

use atomic_bloom::{Builder, Cells, Layout};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A builder of filters of cells `C` sized for `expected_items` at
/// `false_positive_rate`.
pub fn builder<C: Cells>(
    expected_items: i128,
    false_positive_rate: f64,
    layout: Option<&str>,
    seed: i128,
) -> PyResult<Builder<C>> {
    Ok(Builder::default()
        .capacity(
            count("expected_items", expected_items)?,
            false_positive_rate,
        )
        .layout(parse_layout(layout)?)
        .seed(parse_seed(seed)?))
}

/// A count of keys, at least 1.
pub fn count(name: &str, value: i128) -> PyResult<usize> {
    if value < 1 {
        return Err(PyValueError::new_err(format!(
            "{name} must be at least 1, got {value}"
        )));
    }
    usize::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be at most {}, got {value}",
            usize::MAX
        ))
    })
}

/// `value` as a `T`, or a `ValueError` naming the range `min..=max` that
/// the parameter takes (the library checks the range itself for the
/// values that fit `T`).
pub fn within<T: TryFrom<i128>>(name: &str, value: i128, min: i128, max: i128) -> PyResult<T> {
    T::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be between {min} and {max}, got {value}"
        ))
    })
}

/// A seed: 64 bits, unsigned.
pub fn parse_seed(seed: i128) -> PyResult<u64> {
    u64::try_from(seed).map_err(|_| {
        PyValueError::new_err(format!("seed must be between 0 and 2**64 - 1, got {seed}"))
    })
}

/// A layout by name: "standard", "blocked", "word", "sectorized" or
/// "split-block"; `None`
/// for the library's default (`Layout::default()`, "blocked").
pub fn parse_layout(layout: Option<&str>) -> PyResult<Layout> {
    layout.map_or(Ok(Layout::default()), |name| {
        name.parse()
            .map_err(|err| PyValueError::new_err(format!("{err}")))
    })
}
