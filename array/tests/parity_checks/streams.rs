//! Streams, events and graphs (`xp_array::stream`): events time the work between them and
//! follow CuPy's errors; `with_stream` and the guard make a stream current; a captured chain
//! replays with the values of the eager ops, also after the arrays it freed were offered to
//! other work; `z = z*z + c` captured gives the eager bits; a refused operation invalidates the
//! capture and leaks nothing.

use std::sync::{Arc, Mutex, MutexGuard};

use xp_array::*;
use xp_backend_api::DynDevice;

/// The capture checks of one process take turns, so that the pool's count of live captures
/// is theirs alone.
static CAPTURES: Mutex<()> = Mutex::new(());

/// This check's turn (a check that failed before still hands the turn on).
fn turn() -> MutexGuard<'static, ()> {
    CAPTURES.lock().unwrap_or_else(|e| e.into_inner())
}

fn ramp(n: usize, seed: u64) -> Vec<f64> {
    (0..n).map(|i| ((i as u64 * 2654435761 + seed) % 1000) as f64 / 1000.0 - 0.5).collect()
}

pub fn events_time_the_work_between_them(d: &Arc<dyn DynDevice>) {
    with_device(d, || {
        let s = Stream::new(d, true).unwrap();
        let (start, stop) = (Event::new(), Event::new());
        // Never recorded: complete, and an error to time, as CUDA's invalid handle.
        assert!(start.query().unwrap() && !start.is_recorded());
        start.synchronize().unwrap();
        let e = get_elapsed_time(&start, &stop).unwrap_err();
        assert!(e.to_string().contains("start event was never recorded"), "{e}");
        let x = Array::from_slice(&ramp(1 << 16, 1), &[1 << 16]).unwrap();
        let y = with_stream(&s, || {
            start.record(Some(&s)).unwrap();
            let mut y = x.clone();
            for _ in 0..20 {
                y = y.mul(&y).unwrap().add_scalar(0.25).unwrap().sin().unwrap();
            }
            eval(&[&y]).unwrap();
            stop.record(None).unwrap();
            y
        });
        let e = get_elapsed_time(&start, &Event::new()).unwrap_err();
        assert!(e.to_string().contains("stop event was never recorded"), "{e}");
        stop.synchronize().unwrap();
        assert!(stop.query().unwrap() && stop.done().unwrap());
        let ms = get_elapsed_time(&start, &stop).unwrap();
        assert!(ms >= 0.0 && ms.is_finite(), "{ms}");
        // An event recorded by the stream, and waited for by another stream.
        let other = Stream::new(d, false).unwrap();
        let mark = s.record(None).unwrap();
        other.wait_event(&mark).unwrap();
        let z = with_stream(&other, || y.add_scalar(1.0).unwrap());
        other.synchronize().unwrap();
        let (yv, zv) = (y.to_vec::<f64>().unwrap(), z.to_vec::<f64>().unwrap());
        assert!(yv.iter().zip(&zv).all(|(a, b)| *b == a + 1.0));
        s.synchronize().unwrap();
        // `done` marks the end of the queue now and asks whether it was reached: soon after a
        // synchronisation it must be (the CPU's worker thread takes a moment to pass the mark).
        let t0 = std::time::Instant::now();
        while !s.done().unwrap() {
            assert!(t0.elapsed().as_secs() < 10, "an idle stream never reports done");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    })
}

pub fn with_stream_and_the_guard_make_a_stream_current(d: &Arc<dyn DynDevice>) {
    let null = Stream::null(d);
    assert!(null.is_null() && Stream::current(d).is_null());
    let (a, b) = (Stream::new(d, true).unwrap(), Stream::new(d, false).unwrap());
    assert!(a.non_blocking() && !b.non_blocking() && !a.is_null());
    let id = |s: &Stream| s.raw().id();
    with_stream(&a, || {
        assert_eq!(id(&Stream::current(d)), id(&a));
        assert_eq!(current_stream(d).id(), id(&a), "the backend's view agrees");
        with_stream(&b, || assert_eq!(id(&Stream::current(d)), id(&b)));
        assert_eq!(id(&Stream::current(d)), id(&a));
    });
    assert!(Stream::current(d).is_null());
    // Guards, dropped out of order: each removes its own entry.
    let ga = a.use_();
    let gb = b.use_();
    assert_eq!(id(&Stream::current(d)), id(&b));
    drop(ga);
    assert_eq!(id(&Stream::current(d)), id(&b));
    drop(gb);
    assert!(Stream::current(d).is_null());
    // Work queued under a guard runs on its stream.
    let x = with_device(d, || Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap());
    let y = {
        let _g = a.use_();
        let y = x.mul_scalar(2.0).unwrap();
        eval(&[&y]).unwrap();
        y
    };
    a.synchronize().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0]);
}

/// Twenty small ops, as a graph and one by one.
fn chain(x: &Array, c: &Array) -> Array {
    let mut y = x.clone();
    for k in 0..20 {
        y = match k % 4 {
            0 => y.mul(c).unwrap(),
            1 => y.add_scalar(0.125).unwrap(),
            2 => y.sin().unwrap(),
            _ => y.sub(x).unwrap(),
        };
    }
    y
}

pub fn a_captured_chain_replays_the_eager_values(d: &Arc<dyn DynDevice>) {
    let _turn = turn();
    with_device(d, || {
        let n = 1000;
        let x = Array::from_slice(&ramp(n, 3), &[n]).unwrap();
        let c = Array::from_slice(&ramp(n, 7), &[n]).unwrap();
        let s = Stream::new(d, true).unwrap();
        let eager = chain(&x, &c).to_vec::<f64>().unwrap();
        // Pending work made before the capture is computed before it, not recorded.
        let before = x.add_scalar(1.0).unwrap();
        s.begin_capture().unwrap();
        assert!(s.is_capturing());
        assert!(!before.is_pending(), "pending work is computed before the capture");
        let y = with_stream(&s, || chain(&x, &c));
        let g = s.end_capture().unwrap();
        assert!(!s.is_capturing() && !y.is_pending());
        assert!(g.held_bytes() > 0, "the chain's temporaries are held for the graph");
        // Other work now gets memory; none of it may be what the chain freed.
        let guards: Vec<Array> = (0..8).map(|k| Array::full_on(d, &[n], k as f64, DType::F64).unwrap()).collect();
        g.upload(&s).unwrap();
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), eager);
        for (k, a) in guards.iter().enumerate() {
            assert!(a.to_vec::<f64>().unwrap().iter().all(|&v| v == k as f64), "guard {k} was clobbered");
        }
        // New inputs, replayed on another stream: the graph reads them.
        x.fill(0.75).unwrap();
        let other = Stream::new(d, false).unwrap();
        other.wait_event(&Stream::null(d).record(None).unwrap()).unwrap();
        g.launch(&other).unwrap();
        other.synchronize().unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), chain(&x, &c).to_vec::<f64>().unwrap());
        assert_eq!(before.to_vec::<f64>().unwrap(), ramp(n, 3).iter().map(|v| v + 1.0).collect::<Vec<_>>());
        drop(g);
        assert_eq!(d.memory_pool().stats().in_use, d.memory_pool().used_bytes());
    })
}

pub fn a_captured_mandelbrot_step_gives_the_eager_bits(d: &Arc<dyn DynDevice>) {
    let _turn = turn();
    with_device(d, || {
        let side = if d.properties().is_host { 128 } else { 2048 };
        let n = side * side;
        let re: Vec<f64> = (0..n).map(|i| -2.0 + 2.5 * (i % side) as f64 / side as f64).collect();
        let im: Vec<f64> = (0..n).map(|i| -1.25 + 2.5 * (i / side) as f64 / side as f64).collect();
        let c = Array::from_slice(&re, &[side, side])
            .unwrap()
            .astype(DType::C128)
            .unwrap()
            .add(
                &Array::from_slice(&im, &[side, side])
                    .unwrap()
                    .astype(DType::C128)
                    .unwrap()
                    .mul(Scalar::Complex(0.0, 1.0))
                    .unwrap(),
            )
            .unwrap();
        let z0 = zeros(&[side, side], DType::C128).unwrap();
        let step = |z0: &Array| {
            let mut z = z0.copy().unwrap();
            for _ in 0..10 {
                z = z.mul(&z).unwrap().add(&c).unwrap();
            }
            z
        };
        let eager = step(&z0);
        let s = Stream::new(d, true).unwrap();
        s.begin_capture().unwrap();
        let z = with_stream(&s, || step(&z0));
        let g = s.end_capture().unwrap();
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        let bits = |a: &Array| -> Vec<u64> {
            let (r, i) = (a.real().to_vec::<f64>().unwrap(), a.imag().unwrap().to_vec::<f64>().unwrap());
            r.iter().chain(&i).map(|v| v.to_bits()).collect()
        };
        assert_eq!(bits(&z), bits(&eager));
        // Twice: the graph starts from z0 again.
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        assert_eq!(bits(&z), bits(&eager));
    })
}

pub fn host_work_inside_a_capture_fails_it_and_leaks_nothing(d: &Arc<dyn DynDevice>) {
    let _turn = turn();
    with_device(d, || {
        let x = Array::from_slice(&ramp(4096, 5), &[4096]).unwrap();
        let s = Stream::new(d, true).unwrap();
        // The CPU keeps the bytes of a copy from the host and writes them again at each replay
        // (its built-in loops read scalars as 0-d arrays made from the host); GPUs refuse it.
        let refused: &[&str] = if d.properties().is_host {
            &["to_vec", "synchronize", "item"]
        } else {
            &["to_vec", "from_slice", "synchronize", "item"]
        };
        for &forbidden in refused {
            s.begin_capture().unwrap();
            let r = with_stream(&s, || -> Result<()> {
                let y = x.mul_scalar(3.0)?.add(&x)?;
                let big = Array::empty_on(d, &[1 << 20], DType::F64)?;
                match forbidden {
                    "to_vec" => y.to_vec::<f64>().map(|_| ()),
                    "from_slice" => Array::from_slice(&[1.0f64, 2.0], &[2]).map(|_| ()),
                    "synchronize" => s.synchronize(),
                    _ => y.sum(None, false)?.item::<f64>().map(|_| ()),
                }?;
                drop(big);
                Ok(())
            });
            let e = r.unwrap_err();
            assert!(e.to_string().contains("inside a stream capture"), "{forbidden}: {e}");
            let e = s.end_capture().unwrap_err();
            assert!(e.to_string().contains("the capture was invalidated"), "{forbidden}: {e}");
            assert!(!s.is_capturing(), "{forbidden}");
            assert_eq!(pool_captures(d), 0, "{forbidden}: the capture's memory went back");
            // The stream works as before.
            let y = with_stream(&s, || x.add_scalar(1.0).unwrap());
            assert_eq!(y.to_vec::<f64>().unwrap()[0], ramp(4096, 5)[0] + 1.0);
        }
        // A graph whose arrays are gone gives its memory back when dropped.
        s.begin_capture().unwrap();
        let y = with_stream(&s, || chain(&x, &x));
        let g = s.end_capture().unwrap();
        drop(y);
        assert!(g.held_bytes() >= 4096 * 8);
        assert_eq!(pool_captures(d), 1);
        drop(g);
        assert_eq!(pool_captures(d), 0);
        // Misuse is an error, not a hang.
        assert!(s.end_capture().is_err());
        s.begin_capture().unwrap();
        assert!(s.begin_capture().is_err());
        let y = with_stream(&s, || x.add_scalar(2.0).unwrap());
        let g = s.end_capture().unwrap();
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap()[1], ramp(4096, 5)[1] + 2.0);
    })
}

/// Live captures and graphs of `d`'s pool.
fn pool_captures(d: &Arc<dyn DynDevice>) -> usize {
    d.memory_pool().live_captures()
}
