//! A Ballista executor that knows `bloom_build` and `bloom_contains`:
//! Ballista's own (`start_executor_process`), configured by
//! `atomic_bloom_datafusion::ballista::executor_config`.
//!
//! ```sh
//! cargo run --release --features ballista --example ballista_executor -- 50050 50051 50052
//! ```
//!
//! The arguments are the scheduler's port, then this executor's Arrow
//! Flight and gRPC ports, all on 127.0.0.1; a fourth, `--plain`, starts
//! Ballista's executor without this crate's functions and codec (to see
//! what a query that needs them says there).

use atomic_bloom_datafusion::ballista::executor_config;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = |i: usize, default: u16| -> Result<u16, std::num::ParseIntError> {
        args.get(i).map_or(Ok(default), |p| p.parse())
    };
    let plain = args.get(3).is_some_and(|a| a == "--plain");
    let base = if plain {
        ExecutorProcessConfig::default()
    } else {
        executor_config()
    };
    let config = ExecutorProcessConfig {
        scheduler_host: "127.0.0.1".into(),
        scheduler_port: port(0, 50050)?,
        bind_host: "127.0.0.1".into(),
        external_host: Some("127.0.0.1".into()),
        port: port(1, 50051)?,
        grpc_port: port(2, 50052)?,
        ..base
    };
    start_executor_process(Arc::new(config)).await?;
    Ok(())
}
