//! # atomic-bloom for Apache DataFusion
//!
//! Two SQL functions over the [`atomic_bloom`] library, registered with
//! one call:
//!
//! - `bloom_build(key [, expected_items [, false_positive_rate]])`, an
//!   aggregate: the filter of `key`'s non-null values, as the library's
//!   saved bytes (`BINARY`). Partitions build their own filters with plain
//!   writes and merge by union, so any partitioning gives the filter one
//!   process builds, bit for bit ([`build`]).
//! - `bloom_contains(filter, key)`, vectorised over Arrow arrays: whether
//!   `key` may be in `filter`, for semi-join pre-filters ([`contains`]).
//!
//! Keys are hashed by the library's stable encodings of Arrow values
//! ([`keys`]), so a filter built here answers like one the CLI, Rust or
//! Python built from the same keys, and its bytes, saved to a file, are
//! a filter file the CLI reads.
//!
//! With the `proto` feature, `codec::BloomCodec` sends plans that call
//! them to other processes (`datafusion-proto`, as Ballista does).
//!
//! Apart from SQL, [`parquet`] builds Parquet's own split block Bloom
//! filters lock-free, for a Parquet writer to embed (DataFusion then
//! skips row groups by them), and loads the filters a Parquet file holds.
//!
//! ```
//! use atomic_bloom_datafusion::register;
//! use datafusion::prelude::*;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! let ctx = SessionContext::new();
//! register(&ctx);
//! ctx.sql("CREATE TABLE users (id BIGINT) AS VALUES (1), (2), (3)").await?;
//! ctx.sql("CREATE TABLE events (user_id BIGINT) AS VALUES (2), (3), (4), (5)").await?;
//! // Events of known users: the filter drops most others before a join.
//! let kept = ctx
//!     .sql(
//!         "SELECT user_id FROM events \
//!          WHERE bloom_contains((SELECT bloom_build(id, 1000, 0.001) FROM users), user_id) \
//!          ORDER BY user_id",
//!     )
//!     .await?
//!     .collect()
//!     .await?;
//! let ids: Vec<i64> = kept
//!     .iter()
//!     .flat_map(|b| b.column(0).as_any().downcast_ref::<datafusion::arrow::array::Int64Array>().unwrap().values().to_vec())
//!     .collect();
//! assert!(ids.starts_with(&[2, 3])); // every match; a rare false positive may follow
//! # Ok(())
//! # }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "ballista")]
#[cfg_attr(docsrs, doc(cfg(feature = "ballista")))]
pub mod ballista;
pub mod build;
#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub mod codec;
pub mod contains;
pub mod keys;
pub mod parquet;

use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{AggregateUDF, Expr, ScalarUDF};
use datafusion::prelude::SessionContext;
use std::sync::Arc;

/// The aggregate `bloom_build`.
pub fn bloom_build_udaf() -> AggregateUDF {
    AggregateUDF::from(build::BloomBuild::default())
}

/// The function `bloom_contains`.
pub fn bloom_contains_udf() -> ScalarUDF {
    ScalarUDF::from(contains::BloomContains::default())
}

/// Registers `bloom_build` and `bloom_contains` with `ctx`, for SQL and
/// the DataFrame API, and the rewrite that hands `bloom_contains` its
/// filter without a copy per batch ([`contains::BloomContainsRewrite`]).
pub fn register(ctx: &SessionContext) {
    ctx.register_udaf(bloom_build_udaf());
    ctx.register_udf(bloom_contains_udf());
    // A lock on the session's state, taken here, never per query. The
    // rewrite only saves time: were it refused (DataFusion 55 never
    // refuses one), the answers would be the same. Registered twice, the
    // second finds every call already rewritten.
    let _ = ctx
        .state_ref()
        .write()
        .register_function_rewrite(Arc::new(contains::BloomContainsRewrite));
}

/// `bloom_build(key, expected_items, false_positive_rate)` for the
/// DataFrame API.
pub fn bloom_build(key: Expr, expected_items: u64, false_positive_rate: f64) -> Expr {
    bloom_build_udaf().call(vec![
        key,
        datafusion::prelude::lit(expected_items),
        datafusion::prelude::lit(false_positive_rate),
    ])
}

/// `bloom_contains(filter, key)` for the DataFrame API. A constant filter
/// (`lit(bytes)`) that holds a saved filter is read now and bound, as
/// [`bloom_contains_saved`] does; any other is read when the query runs.
pub fn bloom_contains(filter: Expr, key: Expr) -> Expr {
    if let Some(Ok(bound)) = contains::binary_literal(&filter).map(contains::BloomContains::bound) {
        return ScalarUDF::from(bound).call(vec![key]);
    }
    bloom_contains_udf().call(vec![filter, key])
}

/// `bloom_contains` of the filter saved in `saved` (as `bloom_build` gives
/// it), read now and bound to the function, which takes the key alone
/// ([`contains`]'s chapter says why). An error if `saved` is not a saved
/// filter, where a bad constant in a plan is an error at planning.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use atomic_bloom::AtomicBloom;
/// use atomic_bloom_datafusion::bloom_contains_saved;
/// use datafusion::prelude::*;
///
/// let users = AtomicBloom::new(1_000, 0.01)?;
/// users.insert(&7i64);
/// let ctx = SessionContext::new();
/// let events = ctx.sql("SELECT * FROM (VALUES (7), (8)) AS e(user_id)").await?;
/// let kept = events.filter(bloom_contains_saved(&users.to_bytes()?, col("user_id"))?)?;
/// assert!(kept.count().await? >= 1);
/// # Ok(())
/// # }
/// ```
pub fn bloom_contains_saved(saved: &[u8], key: Expr) -> datafusion::common::Result<Expr> {
    Ok(ScalarUDF::from(contains::BloomContains::bound(saved)?).call(vec![key]))
}
