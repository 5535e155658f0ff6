//! A Ballista scheduler that knows `bloom_build` and `bloom_contains`:
//! Ballista's own (`start_server`), configured by
//! `atomic_bloom_datafusion::ballista::scheduler_config`.
//!
//! ```sh
//! cargo run --release --features ballista --example ballista_scheduler -- 50050
//! ```
//!
//! The argument is the port it listens on, on 127.0.0.1 (default 50050).

use atomic_bloom_datafusion::ballista::scheduler_config;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::args().nth(1) {
        Some(port) => port.parse()?,
        None => 50050,
    };
    let config = SchedulerConfig {
        bind_host: "127.0.0.1".into(),
        external_host: "127.0.0.1".into(),
        bind_port: port,
        ..scheduler_config()
    };
    let cluster = BallistaCluster::new_from_config(&config).await?;
    start_server(
        cluster,
        format!("127.0.0.1:{port}").parse()?,
        Arc::new(config),
    )
    .await?;
    Ok(())
}
