//! Plain-text tables with aligned columns.

/// A table: a header row and data rows of strings.
#[derive(Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    right: Vec<bool>,
}

impl Table {
    /// A table with these column titles; `right[i]` right-aligns column `i`.
    pub fn new(header: &[&str], right: &[bool]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            right: right.to_vec(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// True when there is no data row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Renders with two spaces between columns and a rule under the header.
    pub fn render(&self) -> String {
        let cols = self.header.len();
        let mut width: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(cols) {
                width[i] = width[i].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut out = String::new();
            for (i, w) in width.iter().enumerate() {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = w.saturating_sub(cell.chars().count());
                if i > 0 {
                    out.push_str("  ");
                }
                if self.right.get(i).copied().unwrap_or(false) {
                    out.push_str(&" ".repeat(pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    if i + 1 < cols {
                        out.push_str(&" ".repeat(pad));
                    }
                }
            }
            out.trim_end().to_string()
        };
        let mut out = line(&self.header);
        out.push('\n');
        out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * cols.saturating_sub(1)));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }
}

/// Formats a latency with one decimal, `-` when absent, `inf` when infinite.
pub fn fmt_ms(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.is_infinite() => "inf".into(),
        Some(x) => fixed(x, 1),
    }
}

/// `x` with `decimals` decimals, never `-0.000`: a value that rounds to zero
/// is shown without its sign.
///
/// ```
/// use serverpick::core::table::fixed;
/// assert_eq!(fixed(-0.0, 3), "0.000");
/// assert_eq!(fixed(-1e-9, 2), "0.00");
/// assert_eq!(fixed(-1.5, 1), "-1.5");
/// ```
pub fn fixed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

static NOTE_WIDTH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(70);

/// Sets the width [`note`] cuts notes to (`solve --wide`: unlimited).
pub fn set_note_width(width: usize) {
    NOTE_WIDTH.store(width, std::sync::atomic::Ordering::Relaxed);
}

/// A run's message for a table's note column, cut to the note width.
pub fn note(text: &str) -> String {
    short(text, NOTE_WIDTH.load(std::sync::atomic::Ordering::Relaxed))
}

/// `text` cut to `max` characters (with "..." when cut), for table cells.
pub fn short(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        text.chars().take(max.saturating_sub(3)).collect::<String>() + "..."
    } else {
        text.to_string()
    }
}
