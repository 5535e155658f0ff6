//! A Ballista cluster of processes on 127.0.0.1, on ports the system
//! picks: a scheduler and executors, the crate's example binaries. Shared
//! by `tests/ballista.rs` and `examples/ballista_bench.rs`.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Processes killed when it is dropped: when a test ends, passed or not.
pub struct Cluster {
    processes: Vec<Child>,
    /// The scheduler's port.
    pub port: u16,
}

impl Cluster {
    /// `scheduler` and `executors` processes of `executor` (with
    /// `--plain` if `plain`: Ballista's executor without the functions).
    pub fn start(scheduler: &Path, executor: &Path, executors: usize, plain: bool) -> Cluster {
        let port = free_port();
        let mut cluster = Cluster {
            processes: vec![quiet(Command::new(scheduler).arg(port.to_string()))],
            port,
        };
        wait_for(port);
        for _ in 0..executors {
            let (flight, grpc) = (free_port(), free_port());
            let mut command = Command::new(executor);
            command.args([port, flight, grpc].map(|p| p.to_string()));
            if plain {
                command.arg("--plain");
            }
            cluster.processes.push(quiet(&mut command));
            wait_for(flight);
        }
        cluster
    }

    /// The address a client connects to.
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in &mut self.processes {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `command` started, its standard output (Ballista's logs) dropped; its
/// errors show.
fn quiet(command: &mut Command) -> Child {
    let command = command.stdout(Stdio::null());
    command.spawn().expect("cannot start a cluster process")
}

/// A port free on 127.0.0.1 now (the system's pick).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Waits until something listens on `port`, for at most a minute.
fn wait_for(port: u16) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "nothing listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
