//! Generated elementwise kernels over strided, broadcast operands, on the CPU backend: a
//! built-in one (compiled into the crate) and a mixed-dtype one compiled at run time.

use std::sync::Arc;

use xp_backend_api::{Backend, Buffer, DType, DynDevice, KernelArg, KernelSource, LaunchConfig};
use xp_backend_cpu::CpuBackend;
use xp_kernels::elementwise::{collapse, ElementwiseSpec, IndexWidth, Layout, Operand};

fn dev() -> Arc<dyn DynDevice> {
    CpuBackend::device(0).unwrap()
}

fn upload(d: &dyn DynDevice, bytes: &[u8]) -> Buffer {
    let s = d.default_stream();
    let b = d.alloc(bytes.len(), &s).unwrap();
    s.copy_from_host(&b, 0, bytes).unwrap();
    b
}

fn shape_bytes(shape: &[usize]) -> Vec<u8> {
    let mut v = vec![shape.len() as i64];
    v.extend(shape.iter().map(|&d| d as i64));
    v.resize(9, 0);
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn strides_bytes(strides: &[isize]) -> Vec<u8> {
    let mut v: Vec<i64> = strides.iter().map(|&s| s as i64).collect();
    v.resize(8, 0);
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn run(in0: DType, in1: DType, compute: DType, layout: Layout, grid: u32) -> Vec<f64> {
    let d = dev();
    // a: a (4,3) C-contiguous array seen transposed as (3,4); b: a (4,) row broadcast to (3,4).
    let a: Vec<f64> = (0..12).map(|i| i as f64).collect();
    let b: Vec<f64> = vec![0.5, 1.5, 2.5, 3.5];
    let enc = |v: &[f64], dt: DType| -> Vec<u8> {
        match dt {
            DType::F32 => v.iter().flat_map(|x| (*x as f32).to_ne_bytes()).collect(),
            DType::F64 => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            DType::I32 => v.iter().flat_map(|x| (*x as i32).to_ne_bytes()).collect(),
            _ => unreachable!(),
        }
    };
    let (ba, bb) = (upload(&*d, &enc(&a, in0)), upload(&*d, &enc(&b, in1)));
    let out = upload(&*d, &[0u8; 12 * 8]);
    let (shape, strides) = collapse(&[3, 4], &[vec![1, 3], vec![0, 1], vec![4, 1]]);
    assert_eq!(shape, vec![3, 4], "a transposed operand keeps two dimensions");
    let spec = ElementwiseSpec {
        op: "add".into(),
        inputs: vec![Operand::array(in0, compute), Operand::array(in1, compute)],
        outputs: vec![Operand::array(DType::F64, compute)],
        body: "out0 = in0 + in1;".into(),
        preamble: String::new(),
        layout,
        index: IndexWidth::I64,
        fast: None,
    };
    let r = spec.render();
    let k = d.compile(&KernelSource::new(&r.name, &r.code), &Default::default()).unwrap().function(&r.name).unwrap();
    let sh = shape_bytes(&shape);
    let (s0, s1, s2) = (strides_bytes(&strides[0]), strides_bytes(&strides[1]), strides_bytes(&strides[2]));
    let n = 12i64.to_ne_bytes();
    d.default_stream()
        .launch(
            &*k,
            &LaunchConfig::new(grid, 1),
            &[
                KernelArg::buffer(&ba),
                KernelArg::buffer(&bb),
                KernelArg::buffer(&out),
                KernelArg::Value(&sh),
                KernelArg::Value(&s0),
                KernelArg::Value(&s1),
                KernelArg::Value(&s2),
                KernelArg::Value(&n),
            ],
        )
        .unwrap();
    let mut bytes = vec![0u8; 96];
    d.default_stream().copy_to_host(&out, 0, &mut bytes).unwrap();
    bytes.chunks_exact(8).map(|c| f64::from_ne_bytes(c.try_into().unwrap())).collect()
}

fn expected() -> Vec<f64> {
    let b = [0.5, 1.5, 2.5, 3.5];
    let mut e = Vec::new();
    for i in 0..3 {
        for (j, bj) in b.iter().enumerate() {
            e.push((j * 3 + i) as f64 + bj);
        }
    }
    e
}

#[test]
fn strided_broadcast_add_runs_as_a_builtin() {
    // f64 everywhere in the rows layout: this exact kernel is compiled into the crate. Grids
    // that split rows in the middle walk the odometer across row ends.
    for grid in [1, 2, 3, 5, 7, 12, 16] {
        assert_eq!(run(DType::F64, DType::F64, DType::F64, Layout::Rows, grid), expected(), "grid {grid}");
    }
}

#[test]
fn strided_layout_runs_too() {
    assert_eq!(run(DType::F64, DType::F64, DType::F64, Layout::Strided, 3), expected());
}

#[test]
fn mixed_dtypes_convert_on_load_and_store() {
    // int32 + float32 inputs, computed in float64: converted on load, no temporaries.
    let got = run(DType::I32, DType::F32, DType::F64, Layout::Rows, 4);
    let want: Vec<f64> = expected();
    assert_eq!(got, want);
}

#[test]
fn builtins_cover_every_op_loop_and_cast() {
    let n = xp_kernels::ops::ALL.iter().map(|op| op.loops.len()).sum::<usize>()
        + 15 * 14
        + xp_kernels::index::builtin_kernels().len()
        + xp_kernels::binning::builtin_kernels().len()
        + xp_kernels::special::builtin_kernels().len()
        + xp_kernels::signal::builtin_kernels().len()
        + xp_kernels::sort::builtin_kernels().len()
        + xp_kernels::random::builtin_kernels().len()
        + xp_kernels::sparse::builtin_kernels().len()
        + xp_kernels::reduce::builtin_reduce_kernels(xp_kernels::reduce::TargetKind::Cpu).len()
        + xp_kernels::scan::builtin_scan_kernels(xp_kernels::reduce::TargetKind::Cpu).len();
    assert_eq!(xp_backend_cpu::builtin_count(), n);
}
