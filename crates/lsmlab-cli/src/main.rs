//! The `lsmlab` binary: parses nothing itself, hands the arguments to the library.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = lsmlab_cli::run(&args) {
        eprintln!("lsmlab: {e}");
        std::process::exit(1);
    }
}
