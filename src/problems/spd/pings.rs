//! `gen spd --from-pings`: an SPD instance from a ping list
//! ([`crate::net::ping_import`]). The candidate sites are the servers, joined
//! by a complete overlay whose link latencies are their RTTs scaled by
//! `link_scale` (0.7, seed 001's well-provisioned server network, as
//! `--from-matrix` does); the client sites are the clients, one per site,
//! with their RTT to every server as access latency (0 at the server's own
//! site). SPD has one client per row: a population column only selects the
//! sites with players (population > 0); the counts are not weights.

use crate::error::Result;
use crate::net::network::ServerNetwork;
use crate::net::ping_import::PingImport;
use crate::problems::spd::gen::check_gen_spd_params;
use crate::problems::spd::model::{BoundSpec, CommModel, SpdInstance};

/// Settings of one instance.
#[derive(Debug, Clone)]
pub struct PingSpdParams {
    /// CS or P2P.
    pub model: CommModel,
    /// f in μ = f·Γ.
    pub bound_factor: f64,
    /// Factor on server–server RTTs (0.7).
    pub link_scale: f64,
    /// Factor on every value (e.g. 1000 for RTTs in seconds).
    pub unit_scale: f64,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The instance (see the module doc), named `label-model-Ks-Mc-fF`.
pub fn spd_from_pings(imp: &PingImport, p: &PingSpdParams, label: &str) -> Result<SpdInstance> {
    let m = &imp.matrix;
    let (srv, cli) = (&imp.candidates, &imp.clients);
    check_gen_spd_params(srv.len(), cli.len(), p.bound_factor)?;
    if !(p.unit_scale.is_finite() && p.unit_scale > 0.0) {
        return Err(crate::error::Error::Usage(format!(
            "--unit-scale {}: must be a finite number > 0",
            p.unit_scale
        )));
    }
    // Scaling may push a value above the readers' limit: refuse the option
    // (naming the largest value it makes) rather than write an unreadable file.
    let largest = (0..m.len())
        .flat_map(|i| m.row(i).iter().copied())
        .fold(0.0_f64, f64::max);
    let scaled = round3(largest * p.unit_scale);
    if !crate::net::matrix::is_latency(scaled) {
        return Err(crate::error::Error::BadFlag {
            flag: "--unit-scale".into(),
            value: p.unit_scale.to_string(),
            expected: format!(
                "a factor that keeps every latency within {:e} ms (the largest RTT, {largest} \
                 ms, would become {scaled:e} ms)",
                crate::net::matrix::MAX_LATENCY_MS
            ),
        });
    }
    let mut links = Vec::new();
    for (i, &a) in srv.iter().enumerate() {
        for (j, &b) in srv.iter().enumerate().skip(i + 1) {
            links.push((i, j, round3(m.rtt(a, b) * p.unit_scale * p.link_scale)));
        }
    }
    let access: Vec<Vec<Option<f64>>> = cli
        .iter()
        .map(|&c| {
            srv.iter()
                .map(|&s| Some(round3(m.rtt(c, s) * p.unit_scale)))
                .collect()
        })
        .collect();
    let net = ServerNetwork::new(srv.len(), &links);
    let name = format!(
        "{label}-{}-{}s-{}c-f{}",
        p.model,
        srv.len(),
        cli.len(),
        p.bound_factor
    );
    let mut inst = SpdInstance::new(
        name,
        p.model,
        net,
        &access,
        BoundSpec::Factor(p.bound_factor),
    )?;
    inst.server_names = Some(srv.iter().map(|&i| m.ids[i].clone()).collect());
    inst.client_names = Some(cli.iter().map(|&i| m.ids[i].clone()).collect());
    Ok(inst)
}
