//! # Plans that carry the functions, serialised
//!
//! A distributed engine (Ballista, or a service of one's own) sends plans
//! between processes as `datafusion-proto` messages. A call of a function
//! is sent by name, and the receiver looks the name up among its registered
//! functions, or asks its extension codec. [`BloomCodec`] is that codec for
//! `bloom_build` and `bloom_contains`: it writes each call's definition and
//! reads it back as this crate's function, so a receiver that never called
//! [`register`](crate::register) runs the plan too, and builds the same
//! filter bit for bit (`tests/codec.rs`, logical and physical plans).
//!
//! The functions hold no configuration (the expected items and the rate are
//! arguments, sent with the call), so a definition is one byte, its
//! encoding's version, [`VERSION`], except for a `bloom_contains` bound to
//! a constant filter, whose filter's saved bytes follow it. A definition
//! of another version is an error that says so, and one of no bytes (a
//! sender without this codec) means the function of that name. Every
//! other node goes to the codec given to [`BloomCodec::wrapping`] (by
//! default DataFusion's, which has no extensions): a codec of one's own is
//! kept by wrapping it.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! use atomic_bloom_datafusion::{codec::BloomCodec, register};
//! use datafusion::prelude::*;
//! use datafusion_proto::bytes::{
//!     logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
//! };
//!
//! let sender = SessionContext::new();
//! register(&sender);
//! let plan = sender
//!     .sql("SELECT bloom_build(column1, 100, 0.01) FROM (VALUES ('a'), ('b'))")
//!     .await?
//!     .into_optimized_plan()?;
//! let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &BloomCodec::default())?;
//!
//! // A receiver without the functions registered runs it all the same.
//! let receiver = SessionContext::new();
//! let received =
//!     logical_plan_from_bytes_with_extension_codec(&bytes, &receiver.task_ctx(), &BloomCodec::default())?;
//! let rows = receiver.execute_logical_plan(received).await?.collect().await?;
//! assert_eq!(rows[0].num_rows(), 1);
//! # Ok(())
//! # }
//! ```

use crate::build::BloomBuild;
use crate::contains::BloomContains;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{Result, TableReference, plan_err};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use std::sync::Arc;

/// The version of a function's definition: the one byte [`BloomCodec`]
/// writes for `bloom_build` and `bloom_contains`.
pub const VERSION: u8 = 1;

/// The codec of plans that call `bloom_build` or `bloom_contains`, for
/// logical and physical plans (see the module's chapter).
#[derive(Debug, Clone)]
pub struct BloomCodec<L = DefaultLogicalExtensionCodec, P = DefaultPhysicalExtensionCodec> {
    logical: L,
    physical: P,
}

impl Default for BloomCodec {
    fn default() -> Self {
        BloomCodec {
            logical: DefaultLogicalExtensionCodec {},
            physical: DefaultPhysicalExtensionCodec {},
        }
    }
}

impl<L, P> BloomCodec<L, P> {
    /// This crate's functions, and every other node by `logical` (in
    /// logical plans) or `physical` (in physical plans).
    pub fn wrapping(logical: L, physical: P) -> Self {
        BloomCodec { logical, physical }
    }
}

/// What follows the version in a definition of one of this crate's
/// functions: `Ok(Some(rest))` if `name` is `ours`, `Ok(None)` if not, an
/// error for a definition of another version.
fn ours<'a>(name: &str, ours: &str, definition: &'a [u8]) -> Result<Option<&'a [u8]>> {
    if name != ours {
        return Ok(None);
    }
    match definition {
        [] => Ok(Some(&[])),
        [VERSION, rest @ ..] => Ok(Some(rest)),
        _ => plan_err!(
            "the definition of {name} is not one atomic-bloom-datafusion {} reads \
             (version {VERSION}): it was written by another version",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

use crate::build::NAME as BUILD;
use crate::contains::NAME as CONTAINS;

/// The function methods, the same for both kinds of plan: this crate's
/// own, and the others passed to the wrapped codec.
macro_rules! function_methods {
    ($inner:ident) => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
            match ours(name, CONTAINS, buf)? {
                Some([]) => Ok(Arc::new(crate::bloom_contains_udf())),
                Some(filter) => Ok(Arc::new(ScalarUDF::from(BloomContains::bound(filter)?))),
                None => self.$inner.try_decode_udf(name, buf),
            }
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
            let Some(contains) = node.inner().downcast_ref::<BloomContains>() else {
                return self.$inner.try_encode_udf(node, buf);
            };
            buf.push(VERSION);
            contains.write_bound(buf)?;
            Ok(())
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
            match ours(name, BUILD, buf)? {
                Some([]) => Ok(Arc::new(crate::bloom_build_udaf())),
                Some(_) => plan_err!("a definition of {name} is one byte, its version"),
                None => self.$inner.try_decode_udaf(name, buf),
            }
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
            if node.inner().is::<BloomBuild>() {
                buf.push(VERSION);
                return Ok(());
            }
            self.$inner.try_encode_udaf(node, buf)
        }

        fn try_decode_higher_order_function(
            &self,
            name: &str,
            buf: &[u8],
        ) -> Result<Arc<HigherOrderUDF>> {
            self.$inner.try_decode_higher_order_function(name, buf)
        }

        fn try_encode_higher_order_function(
            &self,
            node: &HigherOrderUDF,
            buf: &mut Vec<u8>,
        ) -> Result<()> {
            self.$inner.try_encode_higher_order_function(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
            self.$inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.$inner.try_encode_udwf(node, buf)
        }
    };
}

impl<L: LogicalExtensionCodec, P: Send + Sync + std::fmt::Debug + 'static> LogicalExtensionCodec
    for BloomCodec<L, P>
{
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.logical.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.logical.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        self.logical
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.logical.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.logical.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.logical.try_encode_file_format(buf, node)
    }

    function_methods!(logical);
}

impl<L: Send + Sync + std::fmt::Debug + 'static, P: PhysicalExtensionCodec> PhysicalExtensionCodec
    for BloomCodec<L, P>
{
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.physical.try_decode(buf, inputs, ctx, proto_converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        self.physical.try_encode(node, buf, proto_converter)
    }

    function_methods!(physical);

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.physical.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.physical.try_encode_expr(node, buf, ctx)
    }
}
