//! Output of the dynamic CMA simulation: `events.csv`, `events.jsonl` (one
//! record per event) and `summary.md`.

use crate::error::{Error, Result};
use crate::problems::cma::eval::{delay_cdf, evaluate_cma};
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::sim::{EventRecord, SimResult};
use std::fmt::Write as _;
use std::path::Path;

const COLUMNS: [&str; 12] = [
    "step",
    "kind",
    "client",
    "mirror",
    "present",
    "total_delay",
    "avg_delay",
    "max_delay",
    "under_threshold",
    "transfers",
    "time_us",
    "optimal_total",
];

/// Writes `events.csv`, `events.jsonl` and `summary.md` into `dir`
/// (created if needed).
pub fn write_simulation(dir: &Path, inst: &CmaInstance, sim: &SimResult) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write(&dir.join("events.csv"), &events_csv(&sim.records))?;
    let mut jsonl = String::new();
    for r in &sim.records {
        let line = serde_json::to_string(r)
            .map_err(|e| Error::Usage(format!("cannot serialise an event record: {e}")))?;
        jsonl.push_str(&line);
        jsonl.push('\n');
    }
    write(&dir.join("events.jsonl"), &jsonl)?;
    write(&dir.join("summary.md"), &summary_md(inst, sim))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The CSV text of the event records (header + one row per event).
pub fn events_csv(records: &[EventRecord]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in records {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{:.3},{}",
            r.step,
            r.kind,
            r.client,
            opt(r.mirror),
            r.present,
            r.total_delay,
            r.avg_delay,
            r.max_delay,
            r.under_threshold,
            r.transfers,
            r.time_us,
            opt(r.optimal_total)
        );
    }
    out
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// Aggregates over a subset of records.
struct Agg {
    events: usize,
    transfers: usize,
    times: Vec<f64>,
}

impl Agg {
    fn of<'a>(records: impl Iterator<Item = &'a EventRecord>) -> Agg {
        let mut a = Agg {
            events: 0,
            transfers: 0,
            times: Vec::new(),
        };
        for r in records {
            a.events += 1;
            a.transfers += r.transfers;
            a.times.push(r.time_us);
        }
        a.times.sort_by(f64::total_cmp);
        a
    }

    fn row(&self, label: &str) -> String {
        let n = self.events.max(1) as f64;
        let total: f64 = self.times.iter().sum::<f64>() + 0.0;
        format!(
            "| {label} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
            self.events,
            self.transfers,
            self.transfers as f64 / n,
            total / n,
            quantile(&self.times, 0.5),
            quantile(&self.times, 0.95),
            total / 1e3
        )
    }
}

/// The Markdown summary of a simulation.
pub fn summary_md(inst: &CmaInstance, sim: &SimResult) -> String {
    let rec = &sim.records;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# CMA simulation: {} under {}\n",
        sim.instance, sim.policy
    );
    let _ = writeln!(
        s,
        "{} mirrors (capacities {:?}, total {}), {} client rows, {} events.\n",
        inst.mirrors(),
        inst.capacity,
        inst.total_capacity(),
        inst.clients(),
        rec.len()
    );
    s.push_str("## Transfers and policy time per event\n\n");
    s.push_str(
        "| events | n | transfers | per event | mean µs | median µs | p95 µs | total ms |\n",
    );
    s.push_str("|---|---|---|---|---|---|---|---|\n");
    s.push_str(&Agg::of(rec.iter()).row("all"));
    s.push_str(&Agg::of(rec.iter().filter(|r| r.kind == "join")).row("joins"));
    s.push_str(&Agg::of(rec.iter().filter(|r| r.kind == "leave")).row("leaves"));
    let moving = Agg::of(rec.iter().filter(|r| r.transfers > 0));
    s.push_str(&moving.row("events with transfers"));
    s.push_str("\n## Delays\n\n");
    if let Some(last) = rec.last() {
        let mean_avg = rec.iter().map(|r| r.avg_delay).sum::<f64>() / rec.len() as f64;
        let peak = rec.iter().map(|r| r.max_delay).fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "- after the last event: {} present, total {:.3} ms, average {:.3} ms, max {:.3} ms, \
             {} of {} ({:.1} %) within {} ms",
            last.present,
            last.total_delay,
            last.avg_delay,
            last.max_delay,
            last.under_threshold,
            last.present,
            100.0 * last.under_threshold as f64 / last.present.max(1) as f64,
            sim.threshold
        );
        let _ = writeln!(
            s,
            "- over all events: mean of the average delay {mean_avg:.3} ms, largest maximum delay {peak:.3} ms"
        );
    }
    s.push_str(&verify_lines(inst, rec));
    s.push_str(&cdf_lines(inst, sim));
    s
}

fn verify_lines(inst: &CmaInstance, rec: &[EventRecord]) -> String {
    let checked: Vec<&EventRecord> = rec.iter().filter(|r| r.optimal_total.is_some()).collect();
    if checked.is_empty() {
        return String::new();
    }
    let tol = inst.tolerance() * 10.0;
    let mut off = 0usize;
    let mut worst = 0.0f64;
    for r in &checked {
        let opt = r.optimal_total.unwrap_or(r.total_delay);
        let excess = r.total_delay - opt;
        if excess > tol * (r.present.max(1) as f64) {
            off += 1;
        }
        worst = worst.max(excess);
    }
    format!(
        "- checked against the static optimum (exact-flow) after {} events: {} above it, \
         largest excess {:.6} ms\n",
        checked.len(),
        off,
        worst
    )
}

fn cdf_lines(inst: &CmaInstance, sim: &SimResult) -> String {
    let cdf = delay_cdf(inst, &sim.final_assign);
    if cdf.is_empty() {
        return String::new();
    }
    let ev = evaluate_cma(inst, &sim.final_assign, sim.threshold);
    let mut s =
        String::from("\n## Final delay CDF\n\n| share of players | delay <= (ms) |\n|---|---|\n");
    for q in [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0] {
        let d = cdf
            .iter()
            .find(|(_, share)| *share >= q - 1e-12)
            .map_or(0.0, |(d, _)| *d);
        let _ = writeln!(s, "| {:.0} % | {:.3} |", q * 100.0, d);
    }
    let _ = writeln!(s, "\nLoads per mirror at the end: {:?}", ev.metrics.loads);
    s
}
