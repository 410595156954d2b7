//! Implementation of the `hsaemu inspect` command: lists the code objects in a code object,
//! an offload bundle, or a host executable with a `.hip_fatbin` section, with each kernel's
//! segment sizes, register counts and arguments — as condensed text, or as JSON (`--json`).
//! The report itself is `hsaemu_codeobject::report`.

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
    let file = args.file.display().to_string();
    let data = std::fs::read(&args.file).map_err(|e| format!("{file}: {e}"))?;
    let (mut json, text) =
        hsaemu_codeobject::report::inspect(&data).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        if let Some(fields) = json.as_object_mut() {
            fields.insert("file".into(), serde_json::Value::String(file.clone()));
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| format!("{file}: {e}"))?
        );
    } else {
        print!("{file}:\n{text}");
    }
    Ok(ExitCode::SUCCESS)
}
