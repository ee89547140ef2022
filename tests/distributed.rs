//! `xp::distributed` and copies between devices.
//!
//! Without a GPU: the CPU refuses collectives clearly, the unique id travels through files and
//! environment variables, and bad arguments are refused before any library is opened. With
//! GPUs (every GPU the backends find): each collective against the same computation on the
//! host, in one process (`init_all`) and in two processes (this binary started twice, meeting
//! through a file); a group that never completes times out instead of hanging; peer copies both
//! ways between the first two GPUs.

mod gpus;

use std::sync::Arc;
use std::time::Duration;

use num_complex::Complex32;
use serial_test::serial;
use xp::distributed::{self, ReduceOp, UniqueId};
use xp::{Array, DType, DynDevice, Error};

fn cpu() -> Arc<dyn DynDevice> {
    xp::device("cpu").unwrap()
}

#[test]
fn the_cpu_refuses_collectives_naming_nccl() {
    let e = distributed::get_unique_id(&cpu()).unwrap_err();
    assert!(matches!(&e, Error::Unsupported(m) if m.contains("NCCL or RCCL")), "{e}");
    let e = distributed::init_all(&[cpu()]).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    let id = UniqueId([7; 128]);
    let e = distributed::init_process_with_timeout(&cpu(), 0, 1, &id, Duration::from_secs(1)).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    // A rank outside the world is refused before any library is looked for.
    for (rank, world) in [(2, 2), (0, 0)] {
        let e = distributed::init_process_with_timeout(&cpu(), rank, world, &id, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(&e, Error::Value { reason, .. } if reason.contains(&format!("rank {rank} is not among the {world} ranks"))),
            "{e}"
        );
    }
}

#[test]
fn init_all_refuses_no_devices_and_a_device_given_twice() {
    let e = distributed::init_all(&[]).unwrap_err();
    assert!(matches!(&e, Error::Value { reason, .. } if reason.contains("no devices")), "{e}");
    let e = distributed::init_all(&[cpu(), cpu()]).unwrap_err();
    assert!(matches!(&e, Error::Value { reason, .. } if reason.contains("given twice (ranks 0 and 1)")), "{e}");
}

#[test]
fn unique_ids_travel_through_files_and_the_environment() {
    let dir = std::env::temp_dir().join(format!("xp-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("id");
    let mut bytes = [0u8; 128];
    bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (255 - i) as u8);
    let id = UniqueId(bytes);
    // A reader waiting before the writer gets the id once it lands.
    let reader = {
        let p = path.clone();
        std::thread::spawn(move || distributed::read_unique_id(&p, Duration::from_secs(20)))
    };
    std::thread::sleep(Duration::from_millis(50));
    distributed::write_unique_id(&path, &id).unwrap();
    assert_eq!(reader.join().unwrap().unwrap(), id);
    // No leftover temporary file beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // Nobody writes: the reader gives up after its timeout, naming the file.
    let missing = dir.join("never");
    let e = distributed::read_unique_id(&missing, Duration::from_millis(30)).unwrap_err();
    assert!(matches!(&e, Error::Io { context, .. } if context.contains("never")), "{e}");
    // A file that holds something else.
    std::fs::write(dir.join("bad"), "not an id").unwrap();
    let e = distributed::read_unique_id(&dir.join("bad"), Duration::from_millis(30)).unwrap_err();
    assert!(matches!(e, Error::Value { .. }), "{e}");
    // Rank 1 of `share_unique_id` reads what rank 0 wrote, without opening any library.
    let got = distributed::share_unique_id(&path, 1, &cpu(), Duration::from_secs(1)).unwrap();
    assert_eq!(got, id);
    std::fs::remove_dir_all(&dir).unwrap();
    // The environment.
    let e = distributed::unique_id_from_env("XP_TEST_UNSET_UNIQUE_ID").unwrap_err();
    assert!(e.to_string().contains("XP_TEST_UNSET_UNIQUE_ID is not set"), "{e}");
}

/// The CUDA (or HIP) GPUs of the first GPU backend.
fn gpus(test: &str) -> Vec<Arc<dyn DynDevice>> {
    let all = gpus::gpus_or_skip(test);
    let Some(first) = all.first() else { return all };
    let backend = first.backend_name();
    all.into_iter().filter(|d| d.backend_name() == backend).collect()
}

/// Whether the backend's collective library opens; when not, a GPU run must fail (NCCL is
/// part of what it checks) unless `XP_SKIP_NCCL` says the machine lacks it.
fn library_or_skip(test: &str, d: &Arc<dyn DynDevice>) -> bool {
    match d.collectives() {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var_os("XP_SKIP_NCCL").is_some(),
                "{test}: the collective library of {} is missing: {e}",
                d.label()
            );
            eprintln!("SKIPPED {test}: {e}");
            false
        }
    }
}

/// Rank `r`'s input of `n` elements: distinct per rank and element.
fn input(r: usize, n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7 + r * 13) % 31) as f32 - 15.0 + r as f32 * 0.5).collect()
}

/// Check every collective on `comms` (one per rank, in this process) against the host.
fn check_collectives(comms: &[distributed::Communicator]) {
    let w = comms.len();
    let n = 6 * w;
    let host: Vec<Vec<f32>> = (0..w).map(|r| input(r, n)).collect();
    let xs: Vec<Array> =
        comms.iter().enumerate().map(|(r, c)| Array::from_slice_on(c.device(), &host[r], &[n]).unwrap()).collect();
    let fold = |f: fn(f32, f32) -> f32| -> Vec<f32> {
        (0..n).map(|i| (1..w).fold(host[0][i], |a, r| f(a, host[r][i]))).collect()
    };
    let sum = fold(|a, b| a + b);
    for (op, want) in [
        (ReduceOp::Sum, sum.clone()),
        (ReduceOp::Prod, fold(|a, b| a * b)),
        (ReduceOp::Max, fold(f32::max)),
        (ReduceOp::Min, fold(f32::min)),
        (ReduceOp::Avg, sum.iter().map(|s| s / w as f32).collect()),
    ] {
        let outs = distributed::group(comms, || {
            comms.iter().zip(&xs).map(|(c, x)| c.all_reduce(x, op)).collect::<xp::Result<Vec<_>>>()
        })
        .unwrap();
        for (r, o) in outs.iter().enumerate() {
            let got = o.to_vec::<f32>().unwrap();
            for (g, e) in got.iter().zip(&want) {
                assert!((g - e).abs() <= 1e-5 * e.abs().max(1.0), "all_reduce {op:?} rank {r}: {got:?} vs {want:?}");
            }
        }
    }
    // In place.
    let copies: Vec<Array> = xs.iter().map(|x| x.copy().unwrap()).collect();
    distributed::group(comms, || comms.iter().zip(&copies).try_for_each(|(c, x)| c.all_reduce_(x, ReduceOp::Sum)))
        .unwrap();
    for x in &copies {
        assert_eq!(x.to_vec::<f32>().unwrap(), sum);
    }
    // Broadcast and reduce from the last rank.
    let root = w - 1;
    let outs = distributed::group(comms, || {
        comms.iter().zip(&xs).map(|(c, x)| c.broadcast(x, root)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    for o in &outs {
        assert_eq!(o.to_vec::<f32>().unwrap(), host[root]);
    }
    let outs = distributed::group(comms, || {
        comms.iter().zip(&xs).map(|(c, x)| c.reduce(x, ReduceOp::Max, root)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    assert_eq!(outs[root].to_vec::<f32>().unwrap(), fold(f32::max));
    // All-gather: rank order along a new first axis.
    let outs = distributed::group(comms, || {
        comms.iter().zip(&xs).map(|(c, x)| c.all_gather(x)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    let gathered: Vec<f32> = host.concat();
    for o in &outs {
        assert_eq!(o.shape(), &[w, n]);
        assert_eq!(o.to_vec::<f32>().unwrap(), gathered);
    }
    // Reduce-scatter: rank r gets block r of the sum.
    let outs = distributed::group(comms, || {
        comms.iter().zip(&xs).map(|(c, x)| c.reduce_scatter(x, ReduceOp::Sum)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    for (r, o) in outs.iter().enumerate() {
        assert_eq!(o.to_vec::<f32>().unwrap(), sum[r * 6..(r + 1) * 6]);
    }
    // All-to-all: block p of rank r's result is block r of rank p's input.
    let outs = distributed::group(comms, || {
        comms.iter().zip(&xs).map(|(c, x)| c.all_to_all(x)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    for (r, o) in outs.iter().enumerate() {
        let want: Vec<f32> = (0..w).flat_map(|p| host[p][r * 6..(r + 1) * 6].to_vec()).collect();
        assert_eq!(o.to_vec::<f32>().unwrap(), want, "all_to_all rank {r}");
    }
    // Other dtypes: float64 and int64 sums, complex64 sums (as pairs), bool max (logical or).
    let f64s: Vec<Array> = comms
        .iter()
        .enumerate()
        .map(|(r, c)| Array::from_slice_on(c.device(), &[r as f64 + 0.25, -1.0], &[2]).unwrap())
        .collect();
    let outs = distributed::group(comms, || {
        comms.iter().zip(&f64s).map(|(c, x)| c.all_reduce(x, ReduceOp::Sum)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    let s: f64 = (0..w).map(|r| r as f64 + 0.25).sum();
    assert_eq!(outs[0].to_vec::<f64>().unwrap(), vec![s, -(w as f64)]);
    let cvals = |r: usize| [Complex32::new(r as f32, 1.0), Complex32::new(-1.0, 2.0 * r as f32)];
    let cs: Vec<Array> =
        comms.iter().enumerate().map(|(r, c)| Array::from_slice_on(c.device(), &cvals(r), &[2]).unwrap()).collect();
    let outs = distributed::group(comms, || {
        comms.iter().zip(&cs).map(|(c, x)| c.all_reduce(x, ReduceOp::Sum)).collect::<xp::Result<Vec<_>>>()
    })
    .unwrap();
    let total: Vec<Complex32> = (0..2).map(|i| (0..w).map(|r| cvals(r)[i]).sum()).collect();
    assert_eq!(outs[w - 1].to_vec::<Complex32>().unwrap(), total);
    let e = comms[0].all_reduce(&cs[0], ReduceOp::Max).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
    let e = comms[0].all_reduce(&xs[0].astype(DType::I16).unwrap(), ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("int16"), "{e}");
    // An array of another device.
    let e = comms[0].all_reduce(&Array::from_slice_on(&cpu(), &[1.0f32], &[1]).unwrap(), ReduceOp::Sum).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    // A split that does not fit, a root outside the ranks.
    if w > 1 {
        let odd = Array::from_slice_on(comms[0].device(), &[1.0f32; 3], &[3]).unwrap();
        let e = comms[0].reduce_scatter(&odd, ReduceOp::Sum).unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    }
    // Reducing a strided view in place; a peer outside the ranks; a 0-d array to split.
    let strided = xs[0].slice(&[xp::SliceArg::range(0, n as isize, 2)]).unwrap();
    let e = comms[0].all_reduce_(&strided, ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("C-contiguous"), "{e}");
    let e = comms[0].send(&xs[0], w).unwrap_err();
    assert!(e.to_string().contains(&format!("peer {w} is not among the {w} ranks")), "{e}");
    let scalar = Array::scalar_on(comms[0].device(), 1.0f32, DType::F32).unwrap();
    let e = comms[0].all_to_all(&scalar).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let e = comms[0].broadcast(&xs[0], w).unwrap_err();
    assert!(e.to_string().contains(&format!("root {w} is not among the {w} ranks")), "{e}");
    // Send and receive around a ring.
    if w > 1 {
        let outs = distributed::group(comms, || {
            let mut outs = Vec::new();
            for (r, c) in comms.iter().enumerate() {
                c.send(&xs[r], (r + 1) % w)?;
                outs.push(c.recv(&[n], DType::F32, (r + w - 1) % w)?);
            }
            Ok(outs)
        })
        .unwrap();
        for (r, o) in outs.iter().enumerate() {
            assert_eq!(o.to_vec::<f32>().unwrap(), host[(r + w - 1) % w]);
        }
    }
    for c in comms {
        c.synchronize().unwrap();
    }
}

#[test]
#[serial]
fn every_collective_in_one_process_matches_the_host() {
    let gpus = gpus("every_collective_in_one_process_matches_the_host");
    if gpus.is_empty() || !library_or_skip("every_collective_in_one_process_matches_the_host", &gpus[0]) {
        return;
    }
    let comms = distributed::init_all(&gpus).unwrap();
    eprintln!("{} ranks, {}", comms.len(), comms[0].library());
    assert_eq!(comms.len(), gpus.len());
    check_collectives(&comms);
    // A barrier returns on every rank.
    distributed::group(&comms, || {
        comms.iter().try_for_each(|c| {
            let one = Array::scalar_on(c.device(), 1i32, DType::I32)?;
            c.all_reduce_(&one, ReduceOp::Sum)
        })
    })
    .unwrap();
    for c in &comms {
        c.synchronize().unwrap();
    }
}

/// The two-process test's ranks: this binary run again with `XP_TEST_RANK` set.
#[test]
fn two_process_rank() {
    let Ok(rank) = std::env::var("XP_TEST_RANK") else { return };
    let rank: usize = rank.parse().unwrap();
    let world: usize = std::env::var("XP_TEST_WORLD").unwrap().parse().unwrap();
    let path = std::path::PathBuf::from(std::env::var("XP_TEST_ID_FILE").unwrap());
    let gpus = gpus("two_process_rank");
    let dev = Arc::clone(&gpus[rank % gpus.len()]);
    let id = distributed::share_unique_id(&path, rank, &dev, Duration::from_secs(60)).unwrap();
    let comm = distributed::init_process_with_timeout(&dev, rank, world, &id, Duration::from_secs(60)).unwrap();
    let n = 6 * world;
    let x = Array::from_slice_on(&dev, &input(rank, n), &[n]).unwrap();
    let sum: Vec<f32> = (0..n).map(|i| (0..world).map(|r| input(r, n)[i]).sum()).collect();
    let s = comm.all_reduce(&x, ReduceOp::Sum).unwrap();
    assert_eq!(s.to_vec::<f32>().unwrap(), sum);
    let b = comm.broadcast(&x, 0).unwrap();
    assert_eq!(b.to_vec::<f32>().unwrap(), input(0, n));
    let g = comm.all_gather(&x).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), (0..world).flat_map(|r| input(r, n)).collect::<Vec<_>>());
    let rs = comm.reduce_scatter(&x, ReduceOp::Sum).unwrap();
    assert_eq!(rs.to_vec::<f32>().unwrap(), sum[rank * 6..(rank + 1) * 6]);
    let a = comm.all_to_all(&x).unwrap();
    let want: Vec<f32> = (0..world).flat_map(|p| input(p, n)[rank * 6..(rank + 1) * 6].to_vec()).collect();
    assert_eq!(a.to_vec::<f32>().unwrap(), want);
    let red = comm.reduce(&x, ReduceOp::Min, 0).unwrap();
    if rank == 0 {
        let m: Vec<f32> = (0..n).map(|i| (0..world).map(|r| input(r, n)[i]).fold(f32::INFINITY, f32::min)).collect();
        assert_eq!(red.to_vec::<f32>().unwrap(), m);
    }
    if rank == 0 {
        comm.send(&x, 1).unwrap();
    } else if rank == 1 {
        let got = comm.recv(&[n], DType::F32, 0).unwrap();
        assert_eq!(got.to_vec::<f32>().unwrap(), input(0, n));
    }
    comm.barrier().unwrap();
    println!("rank {rank} of {world}: ok");
}

#[test]
#[serial]
fn two_processes_meet_through_a_file() {
    let test = "two_processes_meet_through_a_file";
    let gpus = gpus(test);
    if gpus.is_empty() || !library_or_skip(test, &gpus[0]) {
        return;
    }
    if gpus.len() < 2 && std::env::var_os("XP_REQUIRE_GPUS").is_none() {
        eprintln!("SKIPPED {test}: one GPU (NCCL needs one device per rank)");
        return;
    }
    let path = std::env::temp_dir().join(format!("xp-nccl-id-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|r| {
            std::process::Command::new(&exe)
                .args(["two_process_rank", "--exact", "--nocapture", "--test-threads=1"])
                .env("XP_TEST_RANK", r.to_string())
                .env("XP_TEST_WORLD", "2")
                .env("XP_TEST_ID_FILE", &path)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (r, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.contains(&format!("rank {r} of 2: ok")), "rank {r}:\n{text}");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
#[serial]
fn a_rank_that_never_comes_times_out_instead_of_hanging() {
    let test = "a_rank_that_never_comes_times_out_instead_of_hanging";
    let gpus = gpus(test);
    if gpus.is_empty() || !library_or_skip(test, &gpus[0]) {
        return;
    }
    let id = distributed::get_unique_id(&gpus[0]).unwrap();
    let t0 = std::time::Instant::now();
    let e = distributed::init_process_with_timeout(&gpus[0], 0, 2, &id, Duration::from_secs(3)).unwrap_err();
    let waited = t0.elapsed();
    assert!(e.to_string().contains("timeout") && e.to_string().contains("aborted"), "{e}");
    assert!(waited >= Duration::from_secs(3) && waited < Duration::from_secs(60), "{waited:?}");
}

#[test]
#[serial]
fn peer_copies_go_both_ways() {
    let test = "peer_copies_go_both_ways";
    let gpus = gpus(test);
    if gpus.len() < 2 {
        if !gpus.is_empty() {
            assert!(std::env::var_os("XP_REQUIRE_GPUS").is_none(), "XP_REQUIRE_GPUS is set but there is one GPU");
            eprintln!("SKIPPED {test}: one GPU");
        }
        return;
    }
    let (a, b) = (&gpus[0], &gpus[1]);
    let n = (1 << 20) + 3;
    let host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let x = Array::from_slice_on(a, &host, &[n]).unwrap();
    let y = x.to_device(b).unwrap();
    assert_eq!(y.device().label(), b.label());
    // Work on the destination after the copy sees the copied values.
    let y2 = xp::with_device(b, || y.mul(&y)).unwrap();
    let back = y2.to_device(a).unwrap();
    let want: Vec<f32> = host.iter().map(|v| v * v).collect();
    assert_eq!(back.to_vec::<f32>().unwrap(), want);
    // A strided view copies its elements.
    let v = x.slice(&[xp::SliceArg::range(1, 1001, 3)]).unwrap();
    assert_eq!(v.to_device(b).unwrap().to_vec::<f32>().unwrap(), v.to_vec::<f32>().unwrap());
    // Arrays of two devices in one op stay an error.
    let e = x.add(&y).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
}
