//! Running the Java programs of `tests/jvm/` (javac, then java), for the
//! tests that check a format against the JVM's own code.

/// A class of `tests/jvm/`, compiled against `jar` into `dir`: what the
/// tests that run Java call with [`run`](Java::run).
pub struct Java {
    classpath: String,
    class: &'static str,
}

impl Java {
    /// Compiles `tests/jvm/<class>.java` against `jar` into `dir`.
    pub fn compile(jar: &str, class: &'static str, dir: &std::path::Path) -> Java {
        let classes = dir.join("classes");
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/jvm/{class}.java"));
        let javac = std::process::Command::new("javac")
            .args(["-cp", jar, "-d"])
            .arg(&classes)
            .arg(&source)
            .status()
            .expect("javac runs");
        assert!(javac.success(), "javac failed on {class}.java");
        Java {
            classpath: format!("{jar}:{}", classes.display()),
            class,
        }
    }

    /// Runs the class with `args`; what it printed.
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> String {
        let out = std::process::Command::new("java")
            .args(["-cp", &self.classpath, self.class])
            .args(args)
            .output()
            .expect("java runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}
