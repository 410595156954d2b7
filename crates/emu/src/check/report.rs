//! Findings: one line each on stderr, beginning `hsaemu: check: ` and the kind word. Findings
//! of the same kind at the same instruction of the same kernel (and, for a race, against the
//! same other instruction) are one finding: its first occurrence is described, with a count.

use parking_lot::Mutex;
use std::collections::HashMap;

/// The kind word of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Race,
    Uninit,
    Bounds,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Race => "race",
            Kind::Uninit => "uninit",
            Kind::Bounds => "bounds",
        }
    }
}

/// What makes two findings identical: kind, kernel, PC, and the other access's PC for a race.
pub(crate) type Key = (Kind, String, u64, u64);

/// A finding's line, count, and whether it was printed.
type Entry = (String, u64, bool);

/// The findings, in order, with an index by key.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    inner: Mutex<(HashMap<Key, usize>, Vec<Entry>)>,
}

impl Findings {
    /// Counts one occurrence; `describe` makes the line the first time only.
    pub(crate) fn add(&self, key: Key, describe: impl FnOnce() -> String) {
        let mut g = self.inner.lock();
        let (index, lines) = &mut *g;
        if let Some(&i) = index.get(&key) {
            lines[i].1 += 1;
            return;
        }
        let line = format!("hsaemu: check: {} {}", key.0.word(), describe());
        index.insert(key, lines.len());
        lines.push((line, 1, false));
    }

    /// Whether any finding was made.
    pub(crate) fn any(&self) -> bool {
        !self.inner.lock().1.is_empty()
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        self.inner
            .lock()
            .1
            .iter()
            .map(|(l, n, _)| counted(l, *n))
            .collect()
    }

    /// The findings not printed yet, marked printed.
    fn take_unprinted(&self) -> Vec<String> {
        let mut g = self.inner.lock();
        let mut out = Vec::new();
        for (l, n, printed) in g.1.iter_mut().filter(|f| !f.2) {
            *printed = true;
            out.push(counted(l, *n));
        }
        out
    }
}

fn counted(line: &str, n: u64) -> String {
    match n {
        1 => line.to_string(),
        n => format!("{line} ({n} times)"),
    }
}

/// Prints the findings not printed yet to stderr (the runtime calls this at process exit, and
/// when a kernel faults, since a program may not survive that) and returns whether there were
/// any findings at all.
pub fn print_findings() -> bool {
    let Some(c) = super::active() else {
        return false;
    };
    let lines = c.findings.take_unprinted();
    if !lines.is_empty() {
        let mut text = lines.join("\n");
        text.push('\n');
        eprint!("{text}");
    }
    c.findings.any()
}
