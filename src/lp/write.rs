//! A model as HiGHS receives it, captured from the good_lp parts, and
//! written as free MPS or CPLEX LP.
//!
//! The `highs` crate has no model writer (and `Highs_writeModel` would need
//! `unsafe`), so the crate writes the files itself from the same parts
//! [`minimise`](crate::lp::highs::minimise) hands to HiGHS: the columns in
//! good_lp's order with their bounds, integrality and cost, one row per
//! constraint, minimisation. good_lp's HiGHS backend drops the objective's
//! constant: HiGHS's objective is the written one, and the constant is kept
//! apart as [`LpModel::offset`] (the sidecar records it).

use good_lp::{Constraint, Expression, IntoAffineExpression, ProblemVariables, Variable};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// One column.
#[derive(Debug, Clone, PartialEq)]
pub struct LpCol {
    /// Name in the file (letters, digits, `_`; unique).
    pub name: String,
    /// What it means (`x[client 3, server 1]`), or the name.
    pub meaning: String,
    /// Lower bound (may be `-inf`).
    pub lower: f64,
    /// Upper bound (may be `inf`).
    pub upper: f64,
    /// Integer column.
    pub integer: bool,
    /// Objective coefficient.
    pub cost: f64,
}

/// One row: `lower <= Σ coef·x <= upper`.
#[derive(Debug, Clone, PartialEq)]
pub struct LpRow {
    /// Name in the file (unique).
    pub name: String,
    /// Lower bound (may be `-inf`).
    pub lower: f64,
    /// Upper bound (may be `inf`).
    pub upper: f64,
    /// `(column, coefficient)`, by column.
    pub coefs: Vec<(usize, f64)>,
}

/// A minimisation model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LpModel {
    /// Columns, in HiGHS's order.
    pub cols: Vec<LpCol>,
    /// Rows, in HiGHS's order.
    pub rows: Vec<LpRow>,
    /// The objective's constant (not in the file: HiGHS's objective + this
    /// = the good_lp objective).
    pub offset: f64,
}

impl LpModel {
    /// The model of `vars`, `objective` and `constraints` (column `i` =
    /// the `i`-th variable added), rows named after the constraints (else
    /// `r<i>`), columns after the variables (else `c<i>`).
    pub fn capture(
        vars: &ProblemVariables,
        objective: &Expression,
        constraints: &[Constraint],
    ) -> Self {
        let mut index: HashMap<Variable, usize> = HashMap::new();
        let mut cols = Vec::with_capacity(vars.len());
        let mut names = Names::default();
        for (i, (v, def)) in vars.iter_variables_with_def().enumerate() {
            index.insert(v, i);
            let meaning = match def.get_name() {
                "" => format!("c{i}"),
                n => n.to_string(),
            };
            cols.push(LpCol {
                name: names.unique(&meaning, 'c', i),
                meaning,
                lower: def.get_min(),
                upper: def.get_max(),
                integer: def.is_integer(),
                cost: 0.0,
            });
        }
        for (v, a) in objective.linear_coefficients() {
            if let Some(c) = index.get(&v).and_then(|&i| cols.get_mut(i)) {
                c.cost += a;
            }
        }
        let rows = constraints
            .iter()
            .enumerate()
            .map(|(r, c)| row_of(c, r, &index, &mut names))
            .collect();
        LpModel {
            cols,
            rows,
            offset: objective.constant(),
        }
    }

    /// Number of nonzero row coefficients.
    pub fn nonzeros(&self) -> usize {
        self.rows.iter().map(|r| r.coefs.len()).sum()
    }

    /// Number of integer columns.
    pub fn integers(&self) -> usize {
        self.cols.iter().filter(|c| c.integer).count()
    }

    /// The objective (without [`Self::offset`]) at `x`.
    pub fn objective_at(&self, x: &[f64]) -> f64 {
        self.cols.iter().zip(x).map(|(c, v)| c.cost * v).sum()
    }
}

/// good_lp keeps `expr <= 0` (or `== 0`); written as `Σ a·x <= -const`,
/// or, when most coefficients are negative, as the same row times −1
/// (`Σ −a·x >= const`), which reads as the `>=` it was written as.
fn row_of(c: &Constraint, r: usize, index: &HashMap<Variable, usize>, names: &mut Names) -> LpRow {
    let e = c.expression();
    let mut coefs: Vec<(usize, f64)> = e
        .linear_coefficients()
        .filter(|&(_, a)| a != 0.0)
        .filter_map(|(v, a)| index.get(&v).map(|&i| (i, a)))
        .collect();
    coefs.sort_unstable_by_key(|&(i, _)| i);
    let rhs = -e.constant();
    let negative = coefs.iter().filter(|(_, a)| *a < 0.0).count();
    let flip = negative * 2 > coefs.len();
    let (lower, upper) = match (c.is_equality(), flip) {
        (true, false) => (rhs, rhs),
        (true, true) => (-rhs, -rhs),
        (false, false) => (f64::NEG_INFINITY, rhs),
        (false, true) => (-rhs, f64::INFINITY),
    };
    if flip {
        coefs.iter_mut().for_each(|(_, a)| *a = -*a);
    }
    let label = c.name().map_or_else(|| format!("r{r}"), str::to_string);
    LpRow {
        name: names.unique(&label, 'r', r),
        lower: lower + 0.0,
        upper: upper + 0.0,
        coefs,
    }
}

/// File names made from meanings: `x[client 3, server 1]` → `x_3_1`;
/// unique (a clash gets `_c<i>` / `_r<i>`).
#[derive(Default)]
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn unique(&mut self, meaning: &str, kind: char, i: usize) -> String {
        let mut name = file_name(meaning);
        if name.is_empty() || !self.used.insert(name.clone()) {
            name = format!("{name}_{kind}{i}");
            self.used.insert(name.clone());
        }
        name
    }
}

/// Letters of the head, then each number: `x[client 3, server 1]` →
/// `x_3_1`; never starting with a digit, `e` or `E` (LP files read those
/// as numbers).
fn file_name(meaning: &str) -> String {
    let head: String = meaning
        .chars()
        .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
        .collect();
    let tail = meaning.get(head.len()..).unwrap_or("");
    let mut name = head;
    for number in tail
        .split(|ch: char| !ch.is_ascii_digit())
        .filter(|s| !s.is_empty())
    {
        name.push('_');
        name.push_str(number);
    }
    match name.chars().next() {
        Some(ch) if ch.is_ascii_digit() || ch == 'e' || ch == 'E' => format!("v_{name}"),
        _ => name,
    }
}

/// A number as both formats read it (`1.0`, `0.25`, `1e-7`).
fn num(x: f64) -> String {
    format!("{x:?}")
}

/// The model as free MPS (`OBJSENSE MIN`, integer columns between
/// `MARKER INTORG/INTEND`, every integer column's bounds explicit).
pub fn to_mps(m: &LpModel, name: &str) -> String {
    let mut s = String::new();
    let title: String = name
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    let _ = writeln!(s, "NAME {title}");
    s.push_str("OBJSENSE\n    MIN\nROWS\n N  obj\n");
    for r in &m.rows {
        let kind = match (r.lower.is_finite(), r.upper.is_finite()) {
            _ if r.lower == r.upper => 'E',
            (_, true) => 'L',
            (true, false) => 'G',
            (false, false) => 'N',
        };
        let _ = writeln!(s, " {kind}  {}", r.name);
    }
    mps_columns(m, &mut s);
    s.push_str("RHS\n");
    for r in &m.rows {
        let rhs = if r.upper.is_finite() {
            r.upper
        } else {
            r.lower
        };
        if rhs.is_finite() && rhs != 0.0 {
            let _ = writeln!(s, "    RHS  {}  {}", r.name, num(rhs));
        }
    }
    let ranged: Vec<&LpRow> = m
        .rows
        .iter()
        .filter(|r| r.lower.is_finite() && r.upper.is_finite() && r.lower < r.upper)
        .collect();
    if !ranged.is_empty() {
        s.push_str("RANGES\n");
        for r in ranged {
            let _ = writeln!(s, "    RNG  {}  {}", r.name, num(r.upper - r.lower));
        }
    }
    s.push_str("BOUNDS\n");
    for c in &m.cols {
        for (kind, v) in mps_bounds(c) {
            match v {
                Some(v) => writeln!(s, " {kind} BND  {}  {}", c.name, num(v)),
                None => writeln!(s, " {kind} BND  {}", c.name),
            }
            .unwrap_or(());
        }
    }
    s.push_str("ENDATA\n");
    s
}

/// The COLUMNS section: each column's cost and row coefficients.
fn mps_columns(m: &LpModel, s: &mut String) {
    let mut by_col: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m.cols.len()];
    for (r, row) in m.rows.iter().enumerate() {
        for &(c, a) in &row.coefs {
            if let Some(list) = by_col.get_mut(c) {
                list.push((r, a));
            }
        }
    }
    s.push_str("COLUMNS\n");
    let mut in_int = false;
    for (c, col) in m.cols.iter().enumerate() {
        if col.integer != in_int {
            let mark = if col.integer { "INTORG" } else { "INTEND" };
            let _ = writeln!(s, "    MARKER  'MARKER'  '{mark}'");
            in_int = col.integer;
        }
        let entries = by_col.get(c).map_or(&[][..], Vec::as_slice);
        if col.cost != 0.0 || entries.is_empty() {
            let _ = writeln!(s, "    {}  obj  {}", col.name, num(col.cost));
        }
        for &(r, a) in entries {
            let row = m.rows.get(r).map_or("", |row| row.name.as_str());
            let _ = writeln!(s, "    {}  {row}  {}", col.name, num(a));
        }
    }
    if in_int {
        s.push_str("    MARKER  'MARKER'  'INTEND'\n");
    }
}

/// A column's BOUNDS lines (none for a continuous `[0, inf)`).
fn mps_bounds(c: &LpCol) -> Vec<(&'static str, Option<f64>)> {
    let (lo, up) = (c.lower, c.upper);
    if c.integer && lo == 0.0 && up == 1.0 {
        return vec![("BV", None)];
    }
    if lo == up {
        return vec![("FX", Some(lo))];
    }
    if lo == f64::NEG_INFINITY && up == f64::INFINITY {
        return vec![("FR", None)];
    }
    let mut out = Vec::new();
    match lo {
        f64::NEG_INFINITY => out.push(("MI", None)),
        l if l != 0.0 || c.integer || up < 0.0 => out.push(("LO", Some(l))),
        _ => {}
    }
    match up {
        f64::INFINITY if c.integer => out.push(("PL", None)),
        f64::INFINITY => {}
        u => out.push(("UP", Some(u))),
    }
    out
}

/// The model as a CPLEX LP file.
pub fn to_lp(m: &LpModel, name: &str) -> String {
    let mut s = format!("\\ {name}\nMinimize\n obj:");
    let terms: Vec<(usize, f64)> = m
        .cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.cost != 0.0)
        .map(|(i, c)| (i, c.cost))
        .collect();
    if terms.is_empty() && !m.cols.is_empty() {
        s.push_str(" 0 ");
        s.push_str(&m.cols[0].name);
    }
    lp_terms(m, &terms, &mut s);
    s.push_str("\nSubject To\n");
    for r in &m.rows {
        let _ = write!(s, " {}:", r.name);
        if r.lower.is_finite() && r.upper.is_finite() && r.lower < r.upper {
            let _ = write!(s, " {} <=", num(r.lower));
        }
        if r.coefs.is_empty() {
            s.push_str(" 0 ");
            s.push_str(m.cols.first().map_or("c0", |c| c.name.as_str()));
        }
        lp_terms(m, &r.coefs, &mut s);
        let _ = match (r.lower.is_finite(), r.upper.is_finite()) {
            _ if r.lower == r.upper => writeln!(s, " = {}", num(r.upper)),
            (_, true) => writeln!(s, " <= {}", num(r.upper)),
            (true, false) => writeln!(s, " >= {}", num(r.lower)),
            (false, false) => writeln!(s, " >= -inf"),
        };
    }
    lp_bounds(m, &mut s);
    s.push_str("End\n");
    s
}

/// ` + 3.0 x - 1.0 y …`, a line break every 8 terms.
fn lp_terms(m: &LpModel, terms: &[(usize, f64)], s: &mut String) {
    for (k, &(c, a)) in terms.iter().enumerate() {
        if k > 0 && k % 8 == 0 {
            s.push_str("\n   ");
        }
        let sign = if a < 0.0 { '-' } else { '+' };
        let name = m.cols.get(c).map_or("?", |c| c.name.as_str());
        let _ = write!(s, " {sign} {} {name}", num(a.abs()));
    }
}

/// Bounds, Generals and Binaries.
fn lp_bounds(m: &LpModel, s: &mut String) {
    s.push_str("Bounds\n");
    for c in &m.cols {
        let binary = c.integer && c.lower == 0.0 && c.upper == 1.0;
        if binary || (c.lower == 0.0 && c.upper == f64::INFINITY) {
            continue;
        }
        let _ = match (c.lower, c.upper) {
            (f64::NEG_INFINITY, f64::INFINITY) => writeln!(s, " {} free", c.name),
            (l, u) if l == u => writeln!(s, " {} = {}", c.name, num(l)),
            (f64::NEG_INFINITY, u) => writeln!(s, " -inf <= {} <= {}", c.name, num(u)),
            (l, f64::INFINITY) => writeln!(s, " {} >= {}", c.name, num(l)),
            (l, u) => writeln!(s, " {} <= {} <= {}", num(l), c.name, num(u)),
        };
    }
    for (title, binary) in [("General", false), ("Binary", true)] {
        let list: Vec<&str> = m
            .cols
            .iter()
            .filter(|c| c.integer && (c.lower == 0.0 && c.upper == 1.0) == binary)
            .map(|c| c.name.as_str())
            .collect();
        if !list.is_empty() {
            let _ = writeln!(s, "{title}");
            for chunk in list.chunks(10) {
                let _ = writeln!(s, " {}", chunk.join(" "));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use good_lp::{constraint, variable};

    fn small() -> LpModel {
        let mut vars = ProblemVariables::new();
        let x = vars.add(variable().binary().name("x[client 3, server 1]"));
        let y = vars.add(variable().min(-2.0).max(4.0));
        let z = vars.add(variable().integer().min(0.0).max(7.0));
        let obj: Expression = 3.0 * x - y + 2.0 + z;
        let cons = vec![
            constraint!(x + y >= 1.0),
            constraint!(x + 2.0 * z <= 5.0).set_name("cap".into()),
            constraint!(y - z == 0.5),
        ];
        LpModel::capture(&vars, &obj, &cons)
    }

    #[test]
    fn capture_keeps_bounds_costs_rows_and_the_offset() {
        let m = small();
        assert_eq!(m.cols[0].name, "x_3_1");
        assert_eq!(m.cols[0].meaning, "x[client 3, server 1]");
        assert!(m.cols[0].integer && m.cols[2].integer && !m.cols[1].integer);
        assert_eq!((m.cols[1].lower, m.cols[1].upper), (-2.0, 4.0));
        assert_eq!(m.cols[0].cost, 3.0);
        assert_eq!(m.offset, 2.0);
        // x + y >= 1 reads as >= again
        assert_eq!(m.rows[0].coefs, vec![(0, 1.0), (1, 1.0)]);
        assert_eq!((m.rows[0].lower, m.rows[0].upper), (1.0, f64::INFINITY));
        assert_eq!(m.rows[1].name, "cap");
        assert_eq!((m.rows[2].lower, m.rows[2].upper), (0.5, 0.5));
        assert_eq!(m.nonzeros(), 6);
    }

    #[test]
    fn mps_and_lp_hold_every_part() {
        let m = small();
        let mps = to_mps(&m, "t");
        for part in [
            "OBJSENSE",
            "MIN",
            " G  r0",
            " L  cap",
            " E  r2",
            "INTORG",
            "INTEND",
            "BV BND  x_3_1",
            "LO BND  c1  -2.0",
            "UP BND  c2  7.0",
            "RHS  r2  0.5",
        ] {
            assert!(mps.contains(part), "{part} missing in\n{mps}");
        }
        let lp = to_lp(&m, "t");
        for part in [
            "Minimize",
            "cap: + 1.0 x_3_1 + 2.0 c2 <= 5.0",
            "Binary",
            "General",
        ] {
            assert!(lp.contains(part), "{part} missing in\n{lp}");
        }
    }
}
