//! What the integration tests share: running SQL and reading a one-value
//! result.
#![allow(dead_code)] // each test file uses some of these

#[cfg(feature = "ballista")]
pub mod cluster;

use datafusion::arrow::array::{BinaryArray, Int64Array, RecordBatch};
use datafusion::prelude::SessionContext;
use std::path::{Path, PathBuf};

/// The batches `sql` gives in `ctx`.
pub async fn run(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql).await.unwrap().collect().await.unwrap()
}

/// The single value of a one-row, one-column binary result.
pub fn the_binary(batches: &[RecordBatch]) -> Vec<u8> {
    let column = batches[0].column(0).as_any().downcast_ref::<BinaryArray>();
    column.unwrap().value(0).to_vec()
}

/// The single binary value `sql` gives in `ctx`.
pub async fn binary(ctx: &SessionContext, sql: &str) -> Vec<u8> {
    the_binary(&run(ctx, sql).await)
}

/// The single `BIGINT` value `sql` gives in `ctx` (a count).
pub async fn count(ctx: &SessionContext, sql: &str) -> i64 {
    let batches = run(ctx, sql).await;
    let column = batches[0].column(0).as_any().downcast_ref::<Int64Array>();
    column.unwrap().value(0)
}

/// The CLI binary of this workspace, built (or brought up to date) once
/// per test process: a binary left by an older checkout would answer for
/// code that is no longer there.
pub fn cli() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            // The CLI is a member of the root workspace, not of this one.
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
            built(&root, &["-p", "atomic-bloom-cli"], "atomic-bloom")
        })
        .clone()
}

/// Builds with `cargo build <args>` in the workspace of `manifest`, and
/// returns the executable cargo made of the target `name`, wherever the
/// target directory is (`CARGO_TARGET_DIR` included).
pub fn built(manifest: &Path, args: &[&str], name: &str) -> PathBuf {
    let out = std::process::Command::new(env!("CARGO"))
        .arg("build")
        .args(args)
        .arg("--message-format=json")
        .arg("--manifest-path")
        .arg(manifest)
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "cannot build {name}");
    // One JSON message a line; the target's names the file.
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|line| line.contains(&format!(r#""name":"{name}","src_path""#)))
        .find_map(|line| {
            let path = line.split(r#""executable":""#).nth(1)?.split('"').next()?;
            Some(PathBuf::from(path))
        })
        .unwrap_or_else(|| panic!("cargo named no {name} executable"))
}
