//! Rows that count players (`players` in the file): what the unit-row
//! engines need to honour the counts.
//!
//! - [`j_greedy_weighted`]: J-greedy with row `i`'s `w_i` players joining
//!   one after another, done a mirror at a time: each fills the closest
//!   mirror with room. Equal to J-greedy on the expanded instance (every
//!   row repeated `w_i` times, in row order). `O(n k log k)`.
//! - [`expand`] / [`collapse`]: the expanded unit-row instance and the
//!   split of its assignment, for engines defined per player (`j-sa`);
//!   refused above [`MAX_EXPANDED_CELLS`] players × mirrors.

use crate::error::{Error, Result};
use crate::problems::cma::exact_lp::Split;
use crate::problems::cma::model::CmaInstance;

/// The most players × mirrors an expanded instance may have (800 MB of
/// delays).
pub const MAX_EXPANDED_CELLS: usize = 100_000_000;

/// J-greedy over weighted rows in row order (see the module doc); `Err`
/// when a row finds no room.
pub fn j_greedy_weighted(inst: &CmaInstance) -> Result<Split> {
    let k = inst.mirrors();
    let mut room = inst.capacity.clone();
    let mut order: Vec<usize> = (0..k).collect();
    let mut split = Vec::with_capacity(inst.clients());
    for i in 0..inst.clients() {
        let row = inst.row(i);
        // closest first, ties to the lower index (J-greedy's rule)
        order.sort_by(|&a, &b| row[a].total_cmp(&row[b]).then(a.cmp(&b)));
        let mut left = inst.weight(i);
        let mut pairs = Vec::new();
        for &j in &order {
            if left == 0 {
                break;
            }
            let take = left.min(room[j]);
            if take > 0 {
                room[j] -= take;
                left -= take;
                pairs.push([j, take]);
            }
        }
        if left > 0 {
            return Err(Error::Solver(format!(
                "client row {i}: {left} players find no mirror with room"
            )));
        }
        split.push(pairs);
    }
    Ok(split)
}

/// The unit-row instance with row `i` repeated `w_i` times (in row order)
/// and, per expanded row, its original row.
pub fn expand(inst: &CmaInstance) -> Result<(CmaInstance, Vec<usize>)> {
    let k = inst.mirrors();
    let players = inst.total_players();
    if players.saturating_mul(k) > MAX_EXPANDED_CELLS {
        return Err(Error::Usage(format!(
            "{players} players × {k} mirrors are more than the {MAX_EXPANDED_CELLS} cells \
             this engine expands weighted rows into (one row per player); exact-flow and \
             j-greedy take the counts as they are"
        )));
    }
    let mut delay = Vec::with_capacity(players * k);
    let mut origin = Vec::with_capacity(players);
    for i in 0..inst.clients() {
        for _ in 0..inst.weight(i) {
            delay.extend_from_slice(inst.row(i));
            origin.push(i);
        }
    }
    let mut out = CmaInstance::new(inst.name.clone(), inst.capacity.clone(), delay)?;
    out.mirror_names = inst.mirror_names.clone();
    Ok((out, origin))
}

/// The split of the original rows from an assignment of the expanded ones.
pub fn collapse(rows: usize, origin: &[usize], assign: &[usize]) -> Split {
    let mut split: Split = vec![Vec::new(); rows];
    for (&i, &j) in origin.iter().zip(assign) {
        match split[i].iter_mut().find(|p| p[0] == j) {
            Some(p) => p[1] += 1,
            None => split[i].push([j, 1]),
        }
    }
    for pairs in &mut split {
        pairs.sort_unstable();
    }
    split
}

/// Parses `LO..HI` (or one number) as an inclusive range of player counts.
pub fn parse_player_range(s: &str) -> Result<(usize, usize)> {
    let bad = || Error::Usage(format!("--players {s}: expected LO..HI (e.g. 1..500) or N"));
    let (lo, hi) = match s.split_once("..") {
        Some((a, b)) => (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        ),
        None => {
            let n = s.trim().parse().map_err(|_| bad())?;
            (n, n)
        }
    };
    if lo > hi || hi > 1_000_000_000 {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// Gives every row a player count uniform in `lo..=hi` (seeded), scaling
/// the capacities by `players / rows` (rounded up) unless `keep_capacity`.
pub fn with_random_players(
    inst: CmaInstance,
    (lo, hi): (usize, usize),
    seed: u64,
    keep_capacity: bool,
) -> Result<CmaInstance> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x0070_6c61_7965_7273);
    let players: Vec<usize> = (0..inst.clients())
        .map(|_| rng.random_range(lo..=hi))
        .collect();
    if inst.events.is_some() || inst.start.is_some() {
        return Err(Error::Usage(
            "--players: a dynamic scenario (events) has one player per row; use --scenario static or sites".into(),
        ));
    }
    let total: usize = players.iter().sum();
    let rows = inst.clients();
    let capacity = if keep_capacity {
        inst.capacity.clone()
    } else {
        let scale = total as f64 / rows.max(1) as f64;
        inst.capacity
            .iter()
            .map(|&c| (c as f64 * scale).ceil() as usize)
            .collect()
    };
    let mut out = CmaInstance::new_weighted(
        inst.name.clone(),
        capacity,
        inst.delay_matrix().to_vec(),
        players,
    )?;
    out.mirror_names = inst.mirror_names;
    out.client_names = inst.client_names;
    out.open_cost = inst.open_cost;
    out.source = inst.source;
    if keep_capacity {
        out.resources = inst.resources;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn j_greedy_weighted_fills_the_closest_mirror_then_the_next() {
        let delay = vec![1.0, 2.0, 5.0, 1.0];
        let inst = CmaInstance::new_weighted("t", vec![3, 4], delay, vec![4, 3]).unwrap();
        let split = j_greedy_weighted(&inst).unwrap();
        assert_eq!(split, vec![vec![[0, 3], [1, 1]], vec![[1, 3]]]);
    }

    #[test]
    fn expand_and_collapse_round_trip() {
        let inst = CmaInstance::from_rows("t", vec![3, 4], &[vec![1.0, 2.0], vec![5.0, 1.0]])
            .unwrap()
            .with_players(vec![2, 0])
            .unwrap();
        let (e, origin) = expand(&inst).unwrap();
        assert_eq!((e.clients(), origin), (2, vec![0, 0]));
        assert_eq!(
            collapse(2, &[0, 0], &[1, 0]),
            vec![vec![[0, 1], [1, 1]], vec![]]
        );
    }
}
