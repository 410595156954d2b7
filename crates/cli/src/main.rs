//! The `hsaemu` command-line tool: one subcommand per file under `commands/`.

mod commands;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// hsaemu: an HSA runtime whose GPU is a software AMD GPU.
#[derive(Parser)]
#[command(name = "hsaemu", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the code objects, kernels and arguments in a code object, bundle or host binary.
    Inspect(commands::inspect::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect(args) => commands::inspect::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("hsaemu: {msg}");
            ExitCode::FAILURE
        }
    }
}
