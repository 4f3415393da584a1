//! Exact minimum set cover on bitsets: the test CS `exact` runs per root
//! and threshold (the model is in [`super`]'s docs).
//!
//! Rows are clients, columns servers; row `i` is the bitset of the columns
//! that cover it. [`min_cover`] first shrinks the instance with the
//! classical reductions, repeated until none applies:
//!
//! * a row no column covers: no cover at all;
//! * a row with a single column forces that column (taken, and every row
//!   it covers is dropped);
//! * a row whose columns include another row's columns is dropped (any
//!   cover of the other covers it); of equal rows one is kept;
//! * a column whose rows are a subset of another column's rows is dropped
//!   (a cover using it may take the other instead, same size); of equal
//!   columns the one met first is kept.
//!
//! Then a depth-first branch and bound decides what is left: branch on the
//! uncovered row with the fewest allowed columns, one child per column
//! (most uncovered rows first), each child forbidding the columns its
//! elder siblings took, so no cover is visited twice; a node is cut when
//! the columns taken plus a lower bound exceed the cap. The lower bound is
//! the larger of a greedy packing of uncovered rows with pairwise disjoint
//! allowed columns (each needs a column of its own) and ⌈uncovered rows /
//! most uncovered rows one allowed column covers⌉.
//!
//! [`min_cover_milp`] states the same cover as a MILP on HiGHS: the
//! fallback when the search exceeds its node budget, and the second
//! formulation the tests compare the search with.
//!
//! Complexity, `R` rows, `C` columns, `W = ⌈C/64⌉`: a reduction pass costs
//! `O(R·K·W + C·K'·⌈R/64⌉ + R log R)` (`K`, `K'`: rows and columns kept);
//! a search node `O(R'·W + C'·⌈R'/64⌉)` on the reduced `R' × C'`; the
//! number of nodes is exponential in the cap in the worst case (set cover
//! is NP-hard).

use crate::core::{Deadline, Status};
use crate::lp::highs::{minimise, MipBuilder, MipResult, MipSettings};
use crate::lp::model_out::Stage;
use good_lp::{constraint, variable, Expression};
use search::Search;

mod search;

/// A bitset, 64 members a word.
pub type Bits = Vec<u64>;

/// Words for `n` members.
pub fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// The bitset of `items` over `n` members.
pub fn bits_of(n: usize, items: impl IntoIterator<Item = usize>) -> Bits {
    let mut b = vec![0; words(n)];
    for i in items {
        set(&mut b, i);
    }
    b
}

#[inline]
fn set(b: &mut [u64], i: usize) {
    b[i / 64] |= 1 << (i % 64);
}

#[inline]
fn clear(b: &mut [u64], i: usize) {
    b[i / 64] &= !(1 << (i % 64));
}

/// The members of `b`, ascending.
pub fn ones(b: &[u64]) -> impl Iterator<Item = usize> + '_ {
    b.iter().enumerate().flat_map(|(w, &word)| {
        let mut x = word;
        std::iter::from_fn(move || {
            (x != 0).then(|| {
                let i = x.trailing_zeros() as usize;
                x &= x - 1;
                w * 64 + i
            })
        })
    })
}

fn count(b: &[u64]) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}

fn count_and(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

fn is_empty(b: &[u64]) -> bool {
    b.iter().all(|&w| w == 0)
}

/// `a ⊆ b`.
fn subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

/// The answer of a cover test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoverAnswer {
    /// A cover within the cap (the least one for [`Goal::Least`]),
    /// columns ascending.
    Found(Vec<usize>),
    /// Proven: no cover within the cap.
    None,
    /// Deadline or node budget hit: a proven lower bound on the columns of
    /// any cover, and a cover within the cap if one was met (for
    /// [`Goal::Least`] not proven least).
    Unknown {
        /// Proven lower bound on the columns of any cover.
        lb: usize,
        /// A cover within the cap, columns ascending.
        cover: Option<Vec<usize>>,
    },
    /// HiGHS failed ([`min_cover_milp`] only).
    Error(String),
}

/// What a cover test looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// The least cover, if it is within the cap.
    Least,
    /// Any cover within the cap.
    Any,
}

/// The instance left by the reductions.
#[derive(Debug, Clone)]
pub struct Reduced {
    /// Columns every cover of at most the least size may take (forced).
    pub forced: Vec<usize>,
    /// The original index of each column left.
    pub cols: Vec<usize>,
    /// The rows left, over the columns left (`cols`' positions), by
    /// ascending column count.
    pub rows: Vec<Bits>,
}

/// Applies the reductions until none applies; `None` when a row has no
/// column (no cover exists). The least cover of the original is `forced`
/// plus the least cover of `rows` mapped through `cols`.
pub fn reduce(n_cols: usize, rows: &[Bits]) -> Option<Reduced> {
    let mut alive = bits_of(n_cols, 0..n_cols);
    let mut rows: Vec<Bits> = rows.to_vec();
    let mut forced = Vec::new();
    loop {
        for r in &mut rows {
            r.iter_mut().zip(&alive).for_each(|(x, a)| *x &= a);
        }
        if rows.iter().any(|r| is_empty(r)) {
            return None;
        }
        let mut single = vec![0u64; alive.len()];
        for r in rows.iter().filter(|r| count(r) == 1) {
            single.iter_mut().zip(r.iter()).for_each(|(s, x)| *s |= x);
        }
        let took = !is_empty(&single);
        if took {
            forced.extend(ones(&single));
            rows.retain(|r| count_and(r, &single) == 0);
            alive.iter_mut().zip(&single).for_each(|(a, s)| *a &= !s);
        }
        rows = minimal_rows(rows);
        let dropped = drop_dominated_columns(&rows, &mut alive);
        if !took && !dropped {
            break;
        }
    }
    forced.sort_unstable();
    Some(compact(&alive, &rows, forced))
}

/// The rows no other row is a subset of (one of equal rows), by ascending
/// column count, ties by their words.
fn minimal_rows(mut rows: Vec<Bits>) -> Vec<Bits> {
    rows.sort_unstable_by(|a, b| count(a).cmp(&count(b)).then_with(|| a.cmp(b)));
    let mut kept: Vec<Bits> = Vec::new();
    for r in rows {
        if !kept.iter().any(|k| subset(k, &r)) {
            kept.push(r);
        }
    }
    kept
}

/// Clears from `alive` every column covering no row or only rows another
/// kept column covers too; true when one was cleared.
fn drop_dominated_columns(rows: &[Bits], alive: &mut Bits) -> bool {
    let col_rows = transpose(rows, alive.len() * 64);
    let mut order: Vec<usize> = ones(alive).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(count(&col_rows[j])));
    let mut kept: Vec<usize> = Vec::new();
    let mut dropped = false;
    for j in order {
        let covers = &col_rows[j];
        if is_empty(covers) || kept.iter().any(|&k| subset(covers, &col_rows[k])) {
            clear(alive, j);
            dropped = true;
        } else {
            kept.push(j);
        }
    }
    dropped
}

/// Per column (of `n_cols`) the bitset of the rows it covers.
fn transpose(rows: &[Bits], n_cols: usize) -> Vec<Bits> {
    let mut t = vec![vec![0u64; words(rows.len())]; n_cols];
    for (i, r) in rows.iter().enumerate() {
        for j in ones(r) {
            set(&mut t[j], i);
        }
    }
    t
}

fn compact(alive: &[u64], rows: &[Bits], forced: Vec<usize>) -> Reduced {
    let cols: Vec<usize> = ones(alive).collect();
    let rows = rows
        .iter()
        .map(|r| {
            let kept = cols
                .iter()
                .enumerate()
                .filter(|&(_, &j)| r[j / 64] >> (j % 64) & 1 == 1);
            bits_of(cols.len(), kept.map(|(p, _)| p))
        })
        .collect();
    Reduced { forced, cols, rows }
}

/// Limits of one search.
#[derive(Debug, Clone, Copy)]
pub struct Budget<'a> {
    /// The run's deadline (checked at the first node and every 1,024
    /// after).
    pub deadline: &'a Deadline,
    /// Nodes allowed (`None`: no budget).
    pub nodes: Option<u64>,
}

/// A cover of the `rows` (bitsets over `n_cols` columns) with at most
/// `cap` columns: the least one for [`Goal::Least`], any for
/// [`Goal::Any`]; by reduction and branch and bound (module docs).
pub fn min_cover(n_cols: usize, rows: &[Bits], cap: usize, goal: Goal, b: Budget) -> CoverAnswer {
    let Some(red) = reduce(n_cols, rows) else {
        return CoverAnswer::None;
    };
    search_reduced(&red, cap, goal, b)
}

/// [`min_cover`] on an already reduced instance.
pub fn search_reduced(red: &Reduced, cap: usize, goal: Goal, b: Budget) -> CoverAnswer {
    let Some(room) = cap.checked_sub(red.forced.len()) else {
        return CoverAnswer::None;
    };
    let mut s = Search::new(&red.rows, red.cols.len(), room, goal, b);
    let root_lb = s.run();
    let cover = s.best.map(|found| {
        let mut cover: Vec<usize> = found.iter().map(|&p| red.cols[p]).collect();
        cover.extend_from_slice(&red.forced);
        cover.sort_unstable();
        cover
    });
    // a search stopped by `Goal::Any`'s first cover has its answer
    match (cover, s.budget_hit) {
        (Some(c), false) => CoverAnswer::Found(c),
        (None, false) => CoverAnswer::None,
        (cover, true) => CoverAnswer::Unknown {
            lb: red.forced.len() + root_lb.min(room + 1),
            cover,
        },
    }
}

/// How [`min_cover_milp`] names and offsets its model when models are
/// written.
#[derive(Debug, Clone)]
pub struct MilpStage {
    /// The stage (file name part and meaning).
    pub stage: Stage,
    /// Added to `Σ y` in the written objective (CS: the root, a host too).
    pub offset: f64,
}

/// The cover as a MILP on HiGHS: `min Σ y_j` s.t. `Σ_{j covers i} y_j >= 1`
/// for every row, `Σ y <= cap`, `y` binary. For [`Goal::Any`] HiGHS may
/// stop at its first solution within the cap.
pub fn min_cover_milp(
    n_cols: usize,
    rows: &[Bits],
    cap: usize,
    goal: Goal,
    (dl, named): (&Deadline, MilpStage),
) -> CoverAnswer {
    if rows.iter().any(|r| is_empty(r)) {
        return CoverAnswer::None;
    }
    let mut b = MipBuilder::for_run(dl);
    let used: Vec<usize> = (0..n_cols)
        .filter(|&j| rows.iter().any(|r| r[j / 64] >> (j % 64) & 1 == 1))
        .collect();
    let cols: Vec<_> = used
        .iter()
        .map(|&j| b.add_as(variable().binary(), || format!("y[server {j}]")))
        .collect();
    let mut pos = vec![usize::MAX; n_cols];
    used.iter().enumerate().for_each(|(p, &j)| pos[j] = p);
    let total: Expression = cols.iter().map(|c| c.var).sum();
    let mut cons = vec![constraint!(total.clone() <= cap as f64).set_name("cap".into())];
    for (i, r) in rows.iter().enumerate() {
        let e: Expression = ones(r).map(|j| cols[pos[j]].var).sum();
        cons.push(b.row(constraint!(e >= 1.0), || format!("cover_{i}")));
    }
    // the cap row makes any answer a cover within the cap; the least one
    // is only needed for `Goal::Least` (integer objective: gap below 1),
    // `Goal::Any` takes HiGHS's first solution (gap above the cap)
    let gap = match goal {
        Goal::Least => 0.999,
        Goal::Any => cap as f64 + named.offset + 1.0,
    };
    let settings = MipSettings::within(dl, gap).stage(named.stage);
    let res = minimise(b, total + named.offset, cons, None, &settings);
    let chosen = |v: &Vec<f64>| -> Vec<usize> {
        used.iter()
            .zip(&cols)
            .filter(|(_, c)| v[c.idx] > 0.5)
            .map(|(&j, _)| j)
            .collect()
    };
    cover_answer(res, named.offset, chosen)
}

/// The cover MILP's result as a [`CoverAnswer`]: `chosen` turns HiGHS's
/// values into the cover's columns; `offset` is the objective's constant.
fn cover_answer(
    res: MipResult,
    offset: f64,
    chosen: impl Fn(&Vec<f64>) -> Vec<usize>,
) -> CoverAnswer {
    match (res.status, &res.values) {
        (Status::Optimal, Some(v)) => CoverAnswer::Found(chosen(v)),
        (Status::Optimal, None) => {
            CoverAnswer::Error("HiGHS reported optimal without a solution".into())
        }
        (Status::Infeasible, _) => CoverAnswer::None,
        (Status::TimeLimit, _) => CoverAnswer::Unknown {
            // HiGHS's bound on Σ y + offset
            lb: res
                .bound
                .map_or(0.0, |b| (b - offset - 1e-6).ceil().max(0.0)) as usize,
            cover: res.values.as_ref().map(chosen),
        },
        _ => CoverAnswer::Error(
            res.message
                .unwrap_or_else(|| "unknown HiGHS failure".into()),
        ),
    }
}

/// A greedy cover of a reduced instance (original columns, the forced
/// ones included, ascending): repeatedly the column covering the most
/// uncovered rows, ties to the first. `O(k · C · ⌈R/64⌉)` for `k` columns
/// taken.
pub fn greedy(red: &Reduced) -> Vec<usize> {
    let col_rows = transpose(&red.rows, red.cols.len());
    let mut uncovered = bits_of(red.rows.len(), 0..red.rows.len());
    let mut cover = red.forced.clone();
    while !is_empty(&uncovered) {
        let best = (0..red.cols.len())
            .map(|j| (count_and(&col_rows[j], &uncovered), j))
            .fold((0, 0), |b, x| if x.0 > b.0 { x } else { b });
        if best.0 == 0 {
            break;
        }
        cover.push(red.cols[best.1]);
        uncovered
            .iter_mut()
            .zip(&col_rows[best.1])
            .for_each(|(u, c)| *u &= !c);
    }
    cover.sort_unstable();
    cover
}
