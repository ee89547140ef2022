//! A data-parallel step on every GPU of the machine: each rank computes a gradient-like array
//! from its share of the data, the ranks all-reduce (average) it through NCCL, and every rank
//! checks the result against the closed form.
//!
//! ```text
//! cargo run --release --features cuda --example distributed              # one process, every GPU
//! cargo run --release --features cuda --example distributed -- --launch 2  # two processes
//! ```
//!
//! `--launch N` is a launcher: it starts this program N times with `XP_RANK`, `XP_WORLD_SIZE`
//! and `XP_UNIQUE_ID_FILE` set; rank 0 writes NCCL's unique id to the file and the others read
//! it (`xp::distributed::share_unique_id`), as ranks on several hosts would through a shared
//! file system or their launcher (MPI, SLURM).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use xp::distributed::{self, Communicator, ReduceOp};
use xp::prelude::*;
use xp::DynDevice;

/// Elements of the gradient.
const N: usize = 1 << 20;

/// Rank `rank`'s gradient: `g[i] = sin(i · 1e-3) · (rank + 1)`, computed on its device.
fn gradient(dev: &Arc<dyn DynDevice>, rank: usize) -> xp::Result<Array> {
    xp::with_device(dev, || {
        xp::arange(0, N as i64, 1, Some(DType::F32))?.mul_scalar(1e-3)?.sin()?.mul_scalar((rank + 1) as f64)
    })
}

/// Check rank `rank`'s averaged gradient: the mean of `(r + 1)` over the ranks times `sin(i · 1e-3)`.
fn check(avg: &Array, world: usize, rank: usize) -> Result<(), String> {
    let got = avg.to_vec::<f32>().map_err(|e| e.to_string())?;
    let scale = (world + 1) as f32 / 2.0;
    let worst =
        got.iter().enumerate().map(|(i, g)| (g - ((i as f32 * 1e-3).sin() * scale)).abs()).fold(0.0f32, f32::max);
    println!("rank {rank} of {world} on {}: averaged gradient, largest error {worst:.2e}", avg.device().label());
    if worst > 1e-4 * scale {
        return Err(format!("rank {rank}: the all-reduced gradient is off by {worst}"));
    }
    Ok(())
}

fn gpus() -> Vec<Arc<dyn DynDevice>> {
    xp::devices().into_iter().filter(|d| !d.properties().is_host).collect()
}

/// One process driving every GPU: one communicator per device, the collective grouped.
fn one_process() -> Result<(), String> {
    let gpus = gpus();
    if gpus.is_empty() {
        println!("no GPU here: the distributed example needs NVIDIA (NCCL) or AMD (RCCL) GPUs");
        return Ok(());
    }
    let comms: Vec<Communicator> = distributed::init_all(&gpus).map_err(|e| e.to_string())?;
    println!("{} ranks in one process, {}", comms.len(), comms[0].library());
    let grads = comms
        .iter()
        .map(|c| gradient(c.device(), c.rank()))
        .collect::<xp::Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    let avgs = distributed::group(&comms, || {
        comms.iter().zip(&grads).map(|(c, g)| c.all_reduce(g, ReduceOp::Avg)).collect::<xp::Result<Vec<_>>>()
    })
    .map_err(|e| e.to_string())?;
    for (c, a) in comms.iter().zip(&avgs) {
        check(a, comms.len(), c.rank())?;
    }
    Ok(())
}

/// One rank of a job started by `--launch`.
fn rank_process(rank: usize, world: usize, id_file: &str) -> Result<(), String> {
    let gpus = gpus();
    if gpus.is_empty() {
        return Err(format!("rank {rank}: no GPU"));
    }
    let dev = Arc::clone(&gpus[rank % gpus.len()]);
    let id = distributed::share_unique_id(id_file.as_ref(), rank, &dev, Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    let comm = xp::with_device(&dev, || distributed::init_process(rank, world, &id)).map_err(|e| e.to_string())?;
    let g = gradient(&dev, rank).map_err(|e| e.to_string())?;
    let avg = comm.all_reduce(&g, ReduceOp::Avg).map_err(|e| e.to_string())?;
    comm.synchronize().map_err(|e| e.to_string())?;
    check(&avg, world, rank)?;
    comm.barrier().map_err(|e| e.to_string())
}

/// Start `n` ranks of this program and wait for them.
fn launch(n: usize) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let id_file = std::env::temp_dir().join(format!("xp-unique-id-{}", std::process::id()));
    let _ = std::fs::remove_file(&id_file);
    let mut children = Vec::new();
    for rank in 0..n {
        let c = std::process::Command::new(&exe)
            .env("XP_RANK", rank.to_string())
            .env("XP_WORLD_SIZE", n.to_string())
            .env("XP_UNIQUE_ID_FILE", &id_file)
            .spawn()
            .map_err(|e| format!("starting rank {rank}: {e}"))?;
        children.push(c);
    }
    let mut failed = Vec::new();
    for (rank, mut c) in children.into_iter().enumerate() {
        match c.wait() {
            Ok(s) if s.success() => {}
            Ok(s) => failed.push(format!("rank {rank} exited with {s}")),
            Err(e) => failed.push(format!("rank {rank}: {e}")),
        }
    }
    let _ = std::fs::remove_file(&id_file);
    if failed.is_empty() {
        println!("{n} processes: ok");
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let env = |k: &str| std::env::var(k).ok();
    let r = if let (Some(rank), Some(world), Some(file)) =
        (env("XP_RANK"), env("XP_WORLD_SIZE"), env("XP_UNIQUE_ID_FILE"))
    {
        match (rank.parse(), world.parse()) {
            (Ok(r), Ok(w)) => rank_process(r, w, &file),
            _ => Err(format!("XP_RANK={rank} and XP_WORLD_SIZE={world} must be numbers")),
        }
    } else if args.len() == 3 && args[1] == "--launch" {
        match args[2].parse::<usize>() {
            Ok(n) if n > 0 => launch(n),
            _ => Err(format!("--launch takes a number of processes, not {}", args[2])),
        }
    } else {
        one_process()
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
