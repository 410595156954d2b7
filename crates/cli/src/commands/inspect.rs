//! Implementation of the `hsaemu inspect` command.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A code object, an offload bundle, or a host executable with a `.hip_fatbin` section.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    Err(format!("{}: inspect is not implemented yet", args.file.display()))
}
