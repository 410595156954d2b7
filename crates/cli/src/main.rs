//! The `hsaemu` command-line tool: one subcommand per file under `commands/`.

mod commands;
mod host_buffer;

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
    /// Disassemble the kernels of a code object, bundle or host binary like `llvm-objdump -d`.
    Disasm(commands::disasm::Args),
    /// Print the system's agents, pools and ISAs like `rocminfo`, from hsaemu's own runtime.
    Info(commands::info::Args),
    /// Run one kernel of a code object on the emulated GPU.
    Run(commands::run::Args),
    /// Run a program with hsaemu's libhsa-runtime64.so.1 found first on the library path.
    Exec(commands::exec::Args),
    /// Run the emulator benchmarks.
    Bench(commands::bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect(args) => commands::inspect::run(args),
        Command::Disasm(args) => commands::disasm::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Exec(args) => commands::exec::run(args),
        Command::Bench(args) => commands::bench::run(args),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("hsaemu: {msg}");
            ExitCode::FAILURE
        }
    }
}
