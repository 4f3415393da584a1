//! `hash`: a plain DHT (Colyseus' `dht`, seed 003 §6.1). The linear map is
//! bucketed into regions (equal runs of consecutive cells; by default one per
//! node, as Mercury-as-DHT makes one region per player), each region's key is
//! a seeded hash, and the region goes to the node whose ring identifier
//! follows the key (consistent hashing). Every node takes `vnodes`
//! identifiers (virtual nodes); `vnodes = 0` hashes regions modulo `N`
//! instead of onto a ring.
//!
//! `O(K + N·V log(N·V) + R log(N·V))` for `R` regions and `V` virtual nodes.

/// SplitMix64: a seeded 64-bit mix.
pub fn mix(seed: u64, a: u64, b: u64) -> u64 {
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The owner per cell of `k` cells over `n` nodes (`n >= 1`): `regions`
/// regions (0 = `n`, at most `k`), `vnodes` ring identifiers per node.
pub fn dht_hash(k: usize, n: usize, regions: usize, vnodes: usize, seed: u64) -> Vec<usize> {
    let r = if regions == 0 { n } else { regions }.clamp(1, k.max(1));
    let mut ring: Vec<(u64, usize)> = (0..n)
        .flat_map(|node| (0..vnodes).map(move |v| (mix(seed, 1 + node as u64, v as u64), node)))
        .collect();
    ring.sort_unstable();
    let region_owner: Vec<usize> = (0..r)
        .map(|reg| {
            let key = mix(seed, 0, reg as u64);
            if ring.is_empty() {
                return (key % n as u64) as usize;
            }
            let at = ring.partition_point(|&(id, _)| id < key);
            ring[at % ring.len()].1
        })
        .collect();
    (0..k).map(|c| region_owner[c * r / k]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_stay_whole_and_the_seed_matters() {
        let a = dht_hash(100, 4, 10, 1, 7);
        assert_eq!(a.len(), 100);
        for reg in 0..10 {
            let cells = &a[reg * 10..reg * 10 + 10];
            assert!(cells.iter().all(|&o| o == cells[0]));
        }
        assert!(a.iter().all(|&o| o < 4));
        assert_eq!(a, dht_hash(100, 4, 10, 1, 7));
        let many: Vec<Vec<usize>> = (0..5).map(|s| dht_hash(100, 4, 10, 3, s)).collect();
        assert!(many.iter().any(|m| m != &many[0]));
        assert!(dht_hash(10, 3, 0, 0, 1).iter().all(|&o| o < 3));
    }
}
