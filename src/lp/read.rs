//! Reading back a free MPS file (as [`to_mps`](crate::lp::write::to_mps)
//! writes it, and the usual free-MPS subset other tools write) and solving
//! it on HiGHS through the `highs` crate's safe API: the round trip that
//! checks a written model is the model the engine solved.

use crate::lp::write::{LpCol, LpModel, LpRow};
use highs::{HighsModelStatus, HighsSolutionStatus, RowProblem, Sense};
use std::collections::HashMap;

/// What a free MPS text says, as an [`LpModel`] (a `MAX` sense is turned
/// into minimisation: costs negated). `Err`: line and reason.
pub fn read_mps(text: &str) -> Result<LpModel, String> {
    let mut p = Parser::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('*') {
            continue;
        }
        p.line(line).map_err(|e| format!("line {}: {e}", n + 1))?;
    }
    if p.maximise {
        p.model.cols.iter_mut().for_each(|c| c.cost = -c.cost);
    }
    Ok(p.model)
}

#[derive(Default)]
struct Parser {
    model: LpModel,
    section: String,
    objective: String,
    rows: HashMap<String, (usize, char)>,
    cols: HashMap<String, usize>,
    integer: bool,
    maximise: bool,
}

impl Parser {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        if !line.starts_with(' ') && !line.starts_with('\t') {
            self.section = f.first().copied().unwrap_or("").to_string();
            if self.section == "OBJSENSE" && f.get(1).is_some_and(|s| s.starts_with("MAX")) {
                self.maximise = true;
            }
            return Ok(());
        }
        match self.section.as_str() {
            "OBJSENSE" => self.maximise = f.first().is_some_and(|s| s.starts_with("MAX")),
            "ROWS" => self.row(&f)?,
            "COLUMNS" => self.column(&f)?,
            "RHS" => self.pairs(&f, |r, v| r.rhs(v))?,
            "RANGES" => self.pairs(&f, |r, v| r.range(v))?,
            "BOUNDS" => self.bound(&f)?,
            "NAME" | "ENDATA" => {}
            s => return Err(format!("unknown section {s}")),
        }
        Ok(())
    }

    fn row(&mut self, f: &[&str]) -> Result<(), String> {
        let [kind, name] = f else {
            return Err("a ROWS line needs a type and a name".into());
        };
        let kind = kind.chars().next().unwrap_or('?');
        if kind == 'N' {
            if self.objective.is_empty() {
                self.objective = name.to_string();
            }
            return Ok(());
        }
        let (lower, upper) = match kind {
            'L' => (f64::NEG_INFINITY, 0.0),
            'G' => (0.0, f64::INFINITY),
            'E' => (0.0, 0.0),
            k => return Err(format!("row type {k}")),
        };
        self.rows
            .insert(name.to_string(), (self.model.rows.len(), kind));
        self.model.rows.push(LpRow {
            name: name.to_string(),
            lower,
            upper,
            coefs: Vec::new(),
        });
        Ok(())
    }

    fn column(&mut self, f: &[&str]) -> Result<(), String> {
        if f.get(1).is_some_and(|m| m.contains("MARKER")) {
            self.integer = f.get(2).is_some_and(|m| m.contains("INTORG"));
            return Ok(());
        }
        let name = f.first().ok_or("an empty COLUMNS line")?;
        let c = match self.cols.get(*name) {
            Some(&c) => c,
            None => {
                self.cols.insert(name.to_string(), self.model.cols.len());
                self.model.cols.push(LpCol {
                    name: name.to_string(),
                    meaning: name.to_string(),
                    lower: 0.0,
                    upper: f64::INFINITY,
                    integer: self.integer,
                    cost: 0.0,
                });
                self.model.cols.len() - 1
            }
        };
        for pair in f.get(1..).unwrap_or(&[]).chunks(2) {
            let [row, v] = pair else {
                return Err(format!("column {name}: a row without a value"));
            };
            let v = number(v)?;
            if *row == self.objective {
                self.model.cols[c].cost = v;
            } else {
                let &(r, _) = self.rows.get(*row).ok_or(format!("unknown row {row}"))?;
                self.model.rows[r].coefs.push((c, v));
            }
        }
        Ok(())
    }

    fn pairs(&mut self, f: &[&str], set: impl Fn(&mut RowSet, f64)) -> Result<(), String> {
        let fields = if f.len() % 2 == 1 { &f[1..] } else { f };
        for pair in fields.chunks(2) {
            let [row, v] = pair else {
                return Err("a row without a value".into());
            };
            let v = number(v)?;
            if *row == self.objective {
                self.model.offset = -v;
                continue;
            }
            let &(r, kind) = self.rows.get(*row).ok_or(format!("unknown row {row}"))?;
            set(
                &mut RowSet {
                    row: &mut self.model.rows[r],
                    kind,
                },
                v,
            );
        }
        Ok(())
    }

    fn bound(&mut self, f: &[&str]) -> Result<(), String> {
        let (kind, name, value) = match f {
            [k, _, n, v] => (*k, *n, Some(number(v)?)),
            [k, _, n] if ["FR", "MI", "PL", "BV"].contains(k) => (*k, *n, None),
            [k, n] => (*k, *n, None),
            _ => return Err("a BOUNDS line needs a type, a set, a column".into()),
        };
        let &c = self
            .cols
            .get(name)
            .ok_or(format!("unknown column {name}"))?;
        let col = &mut self.model.cols[c];
        let v = || value.ok_or(format!("bound {kind} of {name} needs a value"));
        match kind {
            "UP" => col.upper = v()?,
            "LO" => col.lower = v()?,
            "FX" => (col.lower, col.upper) = (v()?, v()?),
            "FR" => (col.lower, col.upper) = (f64::NEG_INFINITY, f64::INFINITY),
            "MI" => col.lower = f64::NEG_INFINITY,
            "PL" => col.upper = f64::INFINITY,
            "BV" => (col.lower, col.upper, col.integer) = (0.0, 1.0, true),
            "LI" => (col.lower, col.integer) = (v()?, true),
            "UI" => (col.upper, col.integer) = (v()?, true),
            k => return Err(format!("bound type {k}")),
        }
        Ok(())
    }
}

/// A row being given its right-hand side or range.
struct RowSet<'a> {
    row: &'a mut LpRow,
    kind: char,
}

impl RowSet<'_> {
    fn rhs(&mut self, v: f64) {
        match self.kind {
            'L' => self.row.upper = v,
            'G' => self.row.lower = v,
            _ => (self.row.lower, self.row.upper) = (v, v),
        }
    }

    fn range(&mut self, r: f64) {
        match self.kind {
            'L' => self.row.lower = self.row.upper - r.abs(),
            'G' => self.row.upper = self.row.lower + r.abs(),
            _ if r >= 0.0 => self.row.upper = self.row.lower + r,
            _ => self.row.lower = self.row.upper + r,
        }
    }
}

fn number(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| !v.is_nan())
        .ok_or(format!("{s}: not a number"))
}

/// What HiGHS made of a model read back.
#[derive(Debug, Clone)]
pub struct Solved {
    /// HiGHS's model status (`Optimal`, `Infeasible`, …).
    pub status: String,
    /// The objective (without the offset) when HiGHS has a primal solution.
    pub objective: Option<f64>,
    /// Column values, in the model's order.
    pub values: Option<Vec<f64>>,
}

/// Solves `m` (minimisation) on HiGHS, quiet, one thread.
pub fn solve(m: &LpModel) -> Result<Solved, String> {
    let mut p = RowProblem::default();
    let cols: Vec<highs::Col> = m
        .cols
        .iter()
        .map(|c| p.add_column_with_integrality(c.cost, c.lower..=c.upper, c.integer))
        .collect();
    for r in &m.rows {
        let coefs = r
            .coefs
            .iter()
            .filter_map(|&(c, a)| Some((*cols.get(c)?, a)));
        p.add_row(r.lower..=r.upper, coefs);
    }
    let mut model = p
        .try_optimise(Sense::Minimise)
        .map_err(|e| format!("HiGHS rejected the model: {e:?}"))?;
    model.make_quiet();
    let solved = model
        .try_solve()
        .map_err(|e| format!("HiGHS failed: {e:?}"))?;
    let feasible = solved.primal_solution_status() == HighsSolutionStatus::Feasible;
    Ok(Solved {
        status: match solved.status() {
            HighsModelStatus::Optimal => "Optimal".into(),
            s => format!("{s:?}"),
        },
        objective: feasible.then(|| solved.objective_value()),
        values: feasible.then(|| solved.get_solution().columns().to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lp::write::{to_lp, to_mps};
    use good_lp::{constraint, variable, Expression, ProblemVariables};

    #[test]
    fn a_written_model_reads_back_the_same_and_solves() {
        let mut vars = ProblemVariables::new();
        let x = vars.add(variable().binary());
        let y = vars.add(variable().min(-2.0).max(4.0));
        let z = vars.add(variable().integer().min(1.0).max(7.0));
        let obj: Expression = -3.0 * x + y + z + 10.0;
        let cons = vec![
            constraint!(x + y >= 1.5),
            constraint!(x + 2.0 * z <= 5.0),
            constraint!(y - z == 0.5),
        ];
        let m = LpModel::capture(&vars, &obj, &cons);
        let back = read_mps(&to_mps(&m, "t")).expect("reads");
        let mut expect = m.clone();
        expect.offset = 0.0;
        expect
            .cols
            .iter_mut()
            .for_each(|c| c.meaning = c.name.clone());
        assert_eq!(back, expect);
        let s = solve(&back).expect("solves");
        assert_eq!(s.status, "Optimal");
        // z = 1, y = 1.5, x = 1: -3 + 1.5 + 1
        assert!((s.objective.unwrap_or(f64::NAN) + 0.5).abs() < 1e-9);
        assert!(to_lp(&m, "t").contains("Subject To"));
    }
}
