//! Prints the `hsaemu inspect` report of a file without building the whole CLI:
//! `cargo run -p hsaemu-codeobject --example inspect -- FILE [--json]`.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: inspect FILE [--json]");
        return std::process::ExitCode::FAILURE;
    };
    let result = std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|d| hsaemu_codeobject::report::inspect(&d));
    match result {
        Ok((json, text)) => {
            if args.iter().any(|a| a == "--json") {
                println!("{json:#}");
            } else {
                print!("{text}");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("inspect: {file}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
