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
//! An executor without the functions refuses the tasks whose plans call
//! them, and Ballista fails the query with "task could not be prepared or
//! was rejected by executor": the cause (a function the executor's
//! registry lacks) stays in the executor's log, as its protocol returns
//! only the refused jobs' ids (`LaunchMultiTaskResult`). The clients here
//! know which of this crate's functions a query calls, and add them to
//! that error (`tests/ballista.rs`,
//! `an_executor_without_the_functions_fails_the_query_naming_them`):
//!
//! ```text
//! an executor refused a plan that calls bloom_build: start every executor
//! with atomic_bloom_datafusion::ballista::executor_config
//! caused by
//! Execution error: Job ... failed: task could not be prepared or was rejected by executor
//! ```
//!
//! A filter bound as a constant (`bloom_contains_saved`, a literal) is in
//! every task's plan, twice (the filter and the Parquet scan's predicate).
//! Ballista caps a gRPC message at 16 MiB, and a query over it waits
//! rather than fail: [`scheduler_config`], [`executor_config`] and the
//! clients here raise the cap to 256 MiB (a filter of 2M keys at 1%, 2.5
//! MB, runs in `tests/ballista.rs`,
//! `a_scheduler_and_two_executor_processes_build_the_same_filter`).
//! Standalone mode keeps Ballista's own scheduler configuration, and its
//! cap: bind small filters there (its test binds one of 0.8 MB). A scalar
//! subquery of the filter (`bloom_contains((SELECT bloom_build(...)),
//! key)`) becomes a nested-loop join there that copies the filter into
//! every row, and fails (an Arrow offset overflow): on Ballista, build the
//! filter first, then bind it.

use crate::codec::BloomCodec;
use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::catalog::Session;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::context::QueryPlanner;
use datafusion::execution::session_state::SessionState;
use datafusion::execution::{SendableRecordBatchStream, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties,
    ReplaceChildrenOptions,
};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::TryStreamExt;
use std::collections::BTreeSet;
use std::fmt;
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
    Ok(client(ctx))
}

/// A client of the Ballista scheduler at `url` (`df://host:port`), the
/// functions registered. The scheduler and executors need them too
/// ([`scheduler_config`], [`executor_config`]).
pub async fn remote(url: &str, config: SessionConfig) -> Result<SessionContext> {
    let ctx = SessionContext::remote_with_state(url, session_state(config)).await?;
    Ok(client(ctx))
}

/// `ctx`, a Ballista client, with the functions, and a planner whose plans
/// name them when an executor refuses the query.
fn client(ctx: SessionContext) -> SessionContext {
    let state = ctx.state();
    let ballista = Arc::clone(state.query_planner());
    let state = SessionStateBuilder::new_from_existing(state)
        .with_query_planner(Arc::new(NamesRefusedFunctions(ballista)))
        .build();
    let ctx = SessionContext::new_with_state(state);
    crate::register(&ctx);
    ctx
}

/// What Ballista's scheduler says when an executor refuses a task
/// (`ballista-scheduler`'s `SchedulerState::revive_offers`).
const REFUSED: &str = "rejected by executor";

/// A client's query planner: Ballista's, whose plans, when they call this
/// crate's functions, name them in the error of an executor's refusal.
#[derive(Debug)]
struct NamesRefusedFunctions(Arc<dyn QueryPlanner + Send + Sync>);

#[async_trait::async_trait]
impl QueryPlanner for NamesRefusedFunctions {
    async fn create_physical_plan(
        &self,
        plan: &LogicalPlan,
        session: &dyn Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let physical = self.0.create_physical_plan(plan, session).await?;
        let calls = functions_called(plan);
        Ok(if calls.is_empty() {
            physical
        } else {
            Arc::new(NamingExec {
                inner: physical,
                calls: Arc::new(calls),
            })
        })
    }
}

/// This crate's functions that `plan` calls, subqueries included.
fn functions_called(plan: &LogicalPlan) -> Vec<&'static str> {
    let mut calls = BTreeSet::new();
    let mut visit = |expr: &Expr| {
        let name = match expr {
            Expr::ScalarFunction(call) => call.name(),
            Expr::AggregateFunction(call) => call.func.name(),
            _ => return Ok(TreeNodeRecursion::Continue),
        };
        calls.extend(
            [crate::build::NAME, crate::contains::NAME]
                .into_iter()
                .filter(|n| *n == name),
        );
        Ok(TreeNodeRecursion::Continue)
    };
    // The visits only return `Ok`: nothing to report.
    let _ = plan.apply_with_subqueries(|node| node.apply_expressions(|e| e.apply(&mut visit)));
    calls.into_iter().collect()
}

/// `error`, with the functions `calls` names if an executor refused the
/// plan.
fn named(error: DataFusionError, calls: &[&str]) -> DataFusionError {
    if !error.to_string().contains(REFUSED) {
        return error;
    }
    error.context(format!(
        "an executor refused a plan that calls {}: start every executor with \
         atomic_bloom_datafusion::ballista::executor_config",
        calls.join(" and ")
    ))
}

/// Ballista's plan, run as it is, its errors [`named`]: the root of a
/// client's plan, which stays in the client (the scheduler receives the
/// logical plan).
#[derive(Debug)]
struct NamingExec {
    inner: Arc<dyn ExecutionPlan>,
    calls: Arc<Vec<&'static str>>,
}

impl DisplayAs for NamingExec {
    fn fmt_as(&self, format: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.fmt_as(format, f)
    }
}

impl ExecutionPlan for NamingExec {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn downcast_delegate(&self) -> Option<&dyn ExecutionPlan> {
        Some(self.inner.as_ref())
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.inner.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        self.inner.children()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(NamingExec {
            inner: Arc::clone(&self.inner).replace_children(children, options)?,
            calls: Arc::clone(&self.calls),
        }))
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.replace_children(
            children,
            ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute),
        )
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let calls = Arc::clone(&self.calls);
        let stream = self
            .inner
            .execute(partition, context)
            .map_err(|e| named(e, &calls))?;
        let schema = stream.schema();
        let stream = stream.map_err(move |e| named(e, &calls));
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
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
    functions.aggregate_functions.insert(
        crate::build::NAME.to_string(),
        Arc::new(crate::bloom_build_udaf()),
    );
    functions.scalar_functions.insert(
        crate::contains::NAME.to_string(),
        Arc::new(crate::bloom_contains_udf()),
    );
    ExecutorProcessConfig {
        override_function_registry: Some(Arc::new(functions)),
        override_logical_codec: Some(codec.clone()),
        override_physical_codec: Some(codec),
        grpc_max_decoding_message_size: MAX_MESSAGE as u32,
        grpc_max_encoding_message_size: MAX_MESSAGE as u32,
        ..ExecutorProcessConfig::default()
    }
}
