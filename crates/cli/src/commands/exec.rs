//! Implementation of the `hsaemu exec` command.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Arguments (not implemented yet).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: Args) -> Result<ExitCode, String> {
    Err("`exec` is not implemented yet".into())
}
