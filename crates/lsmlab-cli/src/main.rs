//! The `lsmlab` binary: parses nothing itself, hands the arguments to the library.
//!
//! Invoked through a link named `db_bench`, it is `lsmlab bench`, so that scripts which run
//! `./db_bench` (RocksDB's `tools/benchmark.sh`) need no wrapper.

fn main() {
    // A pipe its reader closed (`lsmlab dump TABLE | head`) ends the process quietly, as it ends
    // `cat`: Rust's runtime ignores SIGPIPE, which turns the next print into a panic.
    // SAFETY: setting a signal's disposition to the default before any thread is started.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    let mut args: Vec<String> = args.collect();
    let name = std::path::Path::new(&program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name == "db_bench" {
        args.insert(0, "bench".to_string());
    }
    if let Err(e) = lsmlab_cli::run(&args) {
        eprintln!("lsmlab: {e}");
        std::process::exit(1);
    }
}
