//! # On a Ballista cluster
//!
//! [Apache DataFusion Ballista](https://datafusion.apache.org/ballista/)
//! runs a query across processes: the client plans it and sends the
//! logical plan to a scheduler, which splits it into stages and sends
//! them to executors. Each process rebuilds the plan from bytes, so each
//! needs what this crate adds:
//!
//! - the functions, by name: `bloom_build` and `bloom_contains`;
//! - the codec of their definitions, [`BloomCodec`], wrapping Ballista's
//!   own (which carries its shuffle nodes). A filter bound into a plan as
//!   a constant travels inside `bloom_contains`' definition.
//!
//! One call each:
//!
//! | process | call |
//! |---|---|
//! | the client | [`standalone`] (scheduler and executor in this process) or [`remote`] |
//! | a scheduler | [`scheduler_config`], for `ballista_scheduler`'s `start_server` |
//! | an executor | [`executor_config`], for `ballista_executor`'s `start_executor_process` |
//!
//! `examples/ballista_scheduler.rs` and `examples/ballista_executor.rs` are
//! the two server processes, Ballista's own but for these calls; the
//! crate's README starts a cluster of them on loopback.
//!
//! Ballista's `SessionContext::standalone_with_state` and
//! `remote_with_state` replace a state's functions with Ballista's own
//! list: [`standalone`] and [`remote`] register this crate's after that
//! step, where a state registered before it would lose them.
//!
//! An executor without the functions fails the query ("task could not be
//! prepared or was rejected by executor": Ballista does not pass on the
//! cause, a plan naming a function it lacks).
//!
//! A filter bound as a constant (`bloom_contains_saved`, a literal) is in
//! every task's plan, twice (the filter and the Parquet scan's predicate).
//! Ballista caps a gRPC message at 16 MiB, and a query over it waits
//! rather than fail: [`scheduler_config`], [`executor_config`] and the
//! clients here raise the cap to 256 MiB (a filter of 2M keys at 1%, 2.5
//! MB, runs in `tests/ballista.rs`). Standalone mode keeps Ballista's own
//! scheduler configuration, and its cap: a 2.5 MB filter did not finish
//! there in 150 s, one of 0.8 MB did at once. A scalar subquery of the filter
//! (`bloom_contains((SELECT bloom_build(...)), key)`) becomes a nested-loop
//! join there that copies the filter into every row, and fails (an Arrow
//! offset overflow): on Ballista, build the filter first, then bind it.

use crate::codec::BloomCodec;
use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::common::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::session_state::SessionState;
use datafusion::prelude::{SessionConfig, SessionContext};
use std::sync::Arc;

/// The codec a Ballista process needs: this crate's functions, and
/// Ballista's own nodes by Ballista's codecs.
pub type BallistaBloomCodec =
    BloomCodec<BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec>;

/// [`BallistaBloomCodec`], wrapping Ballista's default codecs.
pub fn codec() -> BallistaBloomCodec {
    BloomCodec::wrapping(
        BallistaLogicalExtensionCodec::default(),
        BallistaPhysicalExtensionCodec::default(),
    )
}

/// The largest gRPC message the configurations here let through: a filter
/// bound into a plan rides in every task's definition, twice.
const MAX_MESSAGE: usize = 256 << 20;

/// `config` with Ballista's settings and this crate's codec.
fn with_codec(config: SessionConfig) -> SessionConfig {
    let codec = Arc::new(codec());
    config
        .upgrade_for_ballista()
        .with_ballista_grpc_client_max_message_size(MAX_MESSAGE)
        .with_ballista_logical_extension_codec(codec.clone())
        .with_ballista_physical_extension_codec(codec)
}

/// A session state of `config` that knows the functions and writes their
/// plans with the codec: what a scheduler plans with, and what
/// [`standalone`] hands its in-process scheduler and executor.
pub fn session_state(config: SessionConfig) -> SessionState {
    let state = SessionStateBuilder::new()
        .with_config(with_codec(config))
        .with_default_features()
        .build();
    let ctx = SessionContext::new_with_state(state);
    crate::register(&ctx);
    ctx.state()
}

/// A client of a Ballista scheduler and executor started in this process
/// (Ballista's standalone mode, on a free loopback port), the functions
/// registered in all three.
///
/// ```no_run
/// # #[tokio::main]
/// # async fn main() -> datafusion::common::Result<()> {
/// use datafusion::prelude::SessionConfig;
/// let ctx = atomic_bloom_datafusion::ballista::standalone(SessionConfig::new()).await?;
/// ctx.sql("SELECT bloom_build(id) FROM (VALUES (1), (2)) AS t(id)").await?.show().await?;
/// # Ok(())
/// # }
/// ```
pub async fn standalone(config: SessionConfig) -> Result<SessionContext> {
    let ctx = SessionContext::standalone_with_state(session_state(config)).await?;
    crate::register(&ctx);
    Ok(ctx)
}

/// A client of the Ballista scheduler at `url` (`df://host:port`), the
/// functions registered. The scheduler and executors need them too
/// ([`scheduler_config`], [`executor_config`]).
pub async fn remote(url: &str, config: SessionConfig) -> Result<SessionContext> {
    let ctx = SessionContext::remote_with_state(url, session_state(config)).await?;
    crate::register(&ctx);
    Ok(ctx)
}

/// Ballista's scheduler configuration (`SchedulerConfig::default()`, which
/// the caller adjusts: address, policies) with this crate's codec and a
/// session builder whose sessions know the functions.
pub fn scheduler_config() -> SchedulerConfig {
    let codec = Arc::new(codec());
    SchedulerConfig {
        override_logical_codec: Some(codec.clone()),
        override_physical_codec: Some(codec),
        override_session_builder: Some(Arc::new(|config| Ok(session_state(config)))),
        grpc_server_max_decoding_message_size: MAX_MESSAGE as u32,
        grpc_server_max_encoding_message_size: MAX_MESSAGE as u32,
        grpc_client_max_message_size: MAX_MESSAGE as u32,
        ..SchedulerConfig::default()
    }
}

/// Ballista's executor configuration (`ExecutorProcessConfig::default()`,
/// which the caller adjusts: ports, the scheduler's address) with this
/// crate's codec and functions beside Ballista's.
pub fn executor_config() -> ExecutorProcessConfig {
    let codec = Arc::new(codec());
    let mut functions = BallistaFunctionRegistry::default();
    let bloom_build = Arc::new(crate::bloom_build_udaf());
    let bloom_contains = Arc::new(crate::bloom_contains_udf());
    functions
        .aggregate_functions
        .insert(bloom_build.name().to_string(), bloom_build);
    functions
        .scalar_functions
        .insert(bloom_contains.name().to_string(), bloom_contains);
    ExecutorProcessConfig {
        override_function_registry: Some(Arc::new(functions)),
        override_logical_codec: Some(codec.clone()),
        override_physical_codec: Some(codec),
        grpc_max_decoding_message_size: MAX_MESSAGE as u32,
        grpc_max_encoding_message_size: MAX_MESSAGE as u32,
        ..ExecutorProcessConfig::default()
    }
}
