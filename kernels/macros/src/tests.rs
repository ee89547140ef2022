//! The translation's unit tests: the C++ written for the subset, and each compile error's
//! message and span (line and column, through proc-macro2's `span-locations`). These stand in
//! for trybuild tests: the same checks, without building the library for each case.

use crate::expand::generate;
use crate::translate::Mode;

fn parse(src: &str) -> syn::ItemFn {
    syn::parse_str(src).expect("the test's source parses")
}

fn code(src: &str, mode: Mode) -> String {
    generate(&parse(src), mode).unwrap_or_else(|e| panic!("translation failed: {e}")).code
}

/// The error of translating `src`, with its 1-based line and 0-based column.
fn error(src: &str, mode: Mode) -> (String, usize, usize) {
    let e = match generate(&parse(src), mode) {
        Ok(g) => panic!("expected an error, got:\n{}", g.code),
        Err(e) => e,
    };
    let start = e.span().start();
    (e.to_string(), start.line, start.column)
}

#[test]
fn saxpy_translates_with_float_literals_and_lengths() {
    let c = code(
        "fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
            let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            if i < x.len() {
                out[i] = a * x[i] + y[i] * 2.0;
            }
        }",
        Mode::Raw,
    );
    assert!(c.contains("__xp_rust_kernel_name__(float a, const float* x, xp::u64 x_len, const float* y, xp::u64 y_len, float* out, xp::u64 out_len)"), "{c}");
    // The literal next to an f32 is a float, not a double.
    assert!(c.contains("2.0f"), "{c}");
    assert!(
        c.contains(
            "xp::u64 i = ((xp::u64)((((((xp::u32)blockIdx.x) * ((xp::u32)blockDim.x)) + ((xp::u32)threadIdx.x)))));"
        ),
        "{c}"
    );
    assert!(c.contains("(i < ((xp::u64)x_len))"), "{c}");
}

#[test]
fn literals_take_rust_defaults_and_inferred_types() {
    let c = code(
        "fn k(out: &mut [f64], o32: &mut [i64]) {
            let a = 1.5;
            let b = 7;
            let mut acc = 0.0;
            acc += out[0];
            out[1] = a + acc;
            o32[0] = b as i64;
            let c = 3;
            o32[1] = c;
        }",
        Mode::Raw,
    );
    assert!(c.contains("double a = 1.5;"), "{c}");
    assert!(c.contains("xp::i32 b = 7;"), "{c}");
    assert!(c.contains("double acc = 0.0;"), "{c}");
    // `c` is used as an i64: Rust infers i64 for its literal.
    assert!(c.contains("xp::i64 c = 3ll;"), "{c}");
}

#[test]
fn integer_arithmetic_wraps_and_shifts_are_masked() {
    let c = code(
        "fn k(x: &[i32], out: &mut [i32], u: &mut [u32]) {
            out[0] = x[0] + x[1] * x[2] - x[3];
            out[1] = x[0] / x[1] % x[2];
            out[2] = x[0] << x[1];
            out[3] = -x[0];
            u[0] = u[1] + u[2] * 3;
            u[1] <<= 33;
        }",
        Mode::Raw,
    );
    assert!(c.contains("xp::rs::sub(xp::rs::add(x[0ull], xp::rs::mul(x[1ull], x[2ull])), x[3ull])"), "{c}");
    assert!(c.contains("xp::rs::rem(xp::rs::div(x[0ull], x[1ull]), x[2ull])"), "{c}");
    assert!(c.contains("xp::rs::shl(x[0ull], x[1ull])"), "{c}");
    assert!(c.contains("xp::rs::neg(x[0ull])"), "{c}");
    // u32 arithmetic wraps in C++ too: plain operators.
    assert!(c.contains("(u[1ull] + (u[2ull] * 3u))"), "{c}");
    assert!(c.contains("xp::rs::shl_assign(u[1ull], 33)"), "{c}");
}

#[test]
fn float_to_int_casts_saturate() {
    let c = code("fn k(x: &[f32], out: &mut [u8]) { out[0] = x[0] as u8; }", Mode::Raw);
    assert!(c.contains("xp::rs::as_<xp::u8>(x[0ull])"), "{c}");
}

#[test]
fn loops_shared_memory_and_barriers() {
    let g = generate(
        &parse(
            "fn k(out: &mut [f32]) {
                let tile = shared_array::<[f32; 16], 16>();
                let t = thread_idx().x as usize;
                for j in 0..16 {
                    tile[t][j] = 0.0;
                }
                for j in (0..16usize).step_by(4) { tile[t][j] += 1.0; }
                for j in 0..=3 { tile[t][j] *= 2.0; }
                sync_threads();
                let mut k = 0;
                while k < 4 { k += 1; if k == 2 { continue; } }
                loop { break; }
                out[t] = tile[t][0];
            }",
        ),
        Mode::Raw,
    )
    .unwrap();
    let c = g.code;
    assert!(c.contains("__shared__ float tile[16][16];"), "{c}");
    assert!(c.contains("for (xp::u64 j = 0ull, xp_end"), "{c}");
    assert!(c.contains("__syncthreads();"), "{c}");
    assert!(c.contains("tile[t][j] = 0.0f;"), "{c}");
    assert!(g.translation.uses_sync);
}

#[test]
fn if_expressions_and_device_calls() {
    let g = generate(
        &parse(
            "fn k(x: &[f32], out: &mut [f32]) {
                let i = thread_idx().x as usize;
                let y = if x[i] > 0.0 { x[i] } else { 0.5 * x[i] };
                let z = if y > 1.0 { let q = y * y; q } else { y };
                out[i] = helper(z, 2.0f32) + math::twice(&x[0..4]);
            }",
        ),
        Mode::Raw,
    )
    .unwrap();
    let c = g.code;
    assert!(c.contains("float y = ((x[i] > 0.0f) ? x[i] : (0.5f * x[i]));"), "{c}");
    assert!(c.contains("xp_user::helper(z, 2.0f)"), "{c}");
    assert!(c.contains("xp_user::twice((x + 0ull), (xp::u64)(4ull - 0ull))"), "{c}");
    assert_eq!(g.translation.devices.len(), 2);
}

#[test]
fn device_functions_and_elementwise_kernels() {
    let g = generate(&parse("fn sq<T: xp::Float>(x: T) -> T { x * x }"), Mode::Device).unwrap();
    assert!(g.code.contains("template <class T> XP_DEVICE T sq(T x)"), "{}", g.code);
    assert!(g.code.contains("return (x * x);"), "{}", g.code);
    let g = generate(
        &parse("fn leaky_relu(x: f32, alpha: f32, y: &mut f32) { *y = if x > 0.0 { x } else { alpha * x }; }"),
        Mode::Elementwise,
    )
    .unwrap();
    assert_eq!(g.in_params, "float32 x, float32 alpha");
    assert_eq!(g.out_params, "float32 y");
    assert!(g.code.contains("y = ((x > 0.0f) ? x : (alpha * x));"), "{}", g.code);
}

#[test]
fn captured_constants_and_reserved_names() {
    let g = generate(
        &parse(
            "fn k(out: &mut [f32]) {
                let tile = shared_array::<f32, TILE>();
                let int = 3usize;
                out[int] = tile[0] * SCALE;
            }",
        ),
        Mode::Raw,
    )
    .unwrap();
    let names: Vec<String> = g.translation.consts.iter().map(|c| c.to_string()).collect();
    assert_eq!(names, ["TILE", "SCALE"]);
    assert!(g.code.contains("__shared__ float tile[TILE];"), "{}", g.code);
    assert!(g.code.contains("xp::u64 rs_int = 3ull;"), "{}", g.code);
}

// ---- errors, with their spans ----------------------------------------------------------------

#[test]
fn unsupported_syntax_is_an_error_at_its_span() {
    let (msg, line, col) = error(
        "fn k(out: &mut [f32]) {
    let v = vec![1.0f32];
}",
        Mode::Raw,
    );
    assert!(msg.contains("unsupported syntax") || msg.contains("macros are not supported"), "{msg}");
    assert_eq!((line, col), (2, 12), "{msg}");

    let (msg, line, col) = error(
        "fn k(out: &mut [f32]) {
    match 1 { _ => {} }
}",
        Mode::Raw,
    );
    assert!(msg.contains("unsupported syntax in a kernel") && msg.contains("`for i in a..b`"), "{msg}");
    assert_eq!((line, col), (2, 4));

    let (msg, line, col) = error(
        "fn k(out: &mut [f32]) {
    for (a, b) in 0..4 {}
}",
        Mode::Raw,
    );
    assert!(msg.contains("binds one name"), "{msg}");
    assert_eq!((line, col), (2, 8));

    let (msg, line, col) = error(
        "fn k(x: &[f32], out: &mut [f32]) {
    for v in x.iter() {}
}",
        Mode::Raw,
    );
    assert!(msg.contains("iterate over a range"), "{msg}");
    assert_eq!((line, col), (2, 13));

    let (msg, line, col) = error("fn k(x: f32, y: &mut f32) { if x > 0.0 { return; } *y = x; }", Mode::Elementwise);
    assert!(msg.contains("`return` is not supported in #[xp::kernel]"), "{msg}");
    assert_eq!((line, col), (1, 41));
}

#[test]
fn wrong_parameter_types_are_errors_at_the_type() {
    let (msg, line, col) = error("fn k(x: Vec<f32>, out: &mut [f32]) {}", Mode::Raw);
    assert!(msg.contains("unsupported type in a kernel") && msg.contains("xp::Float"), "{msg}");
    assert_eq!((line, col), (1, 8));

    let (msg, line, col) = error("fn k(x: &[String], out: &mut [f32]) {}", Mode::Raw);
    assert!(msg.contains("a slice's element type"), "{msg}");
    assert_eq!((line, col), (1, 10));

    let (msg, line, col) = error("fn k(x: &mut f32) {}", Mode::Raw);
    assert!(msg.contains("`&mut [T]` (written)"), "{msg}");
    assert_eq!((line, col), (1, 8));

    let (msg, _, _) = error("fn k<T: Clone>(x: &[T]) {}", Mode::Raw);
    assert!(msg.contains("bound each type parameter by `xp::Float` or `xp::Int`"), "{msg}");

    let (msg, line, col) = error("fn k(x: &[f32]) -> f32 { 0.0 }", Mode::Raw);
    assert!(msg.contains("returns nothing"), "{msg}");
    assert_eq!((line, col), (1, 19));

    let (msg, _, _) = error("fn k(x: f32) {}", Mode::Elementwise);
    assert!(msg.contains("needs at least one output"), "{msg}");
}

#[test]
fn unknown_builtins_and_methods_are_errors_at_their_span() {
    let (msg, line, col) = error(
        "fn k(x: &[f32], out: &mut [f32]) {
    out[0] = x[0].frobnicate();
}",
        Mode::Raw,
    );
    assert!(msg.contains("unknown method `frobnicate`") && msg.contains("sqrt"), "{msg}");
    assert_eq!((line, col), (2, 18));

    let (msg, line, col) = error("fn k(out: &mut [f32]) { out[0] = thread_idx().w as f32; }", Mode::Raw);
    assert!(msg.contains("`.x`, `.y`, `.z`"), "{msg}");
    assert_eq!((line, col), (1, 33));

    let (msg, line, col) = error("fn k(x: f32, y: &mut f32) { *y = thread_idx().x as f32; }", Mode::Elementwise);
    assert!(msg.contains("`thread_idx` is for #[xp::rawkernel]"), "{msg}");
    assert_eq!((line, col), (1, 33));

    let (msg, line, col) = error("fn k<T: xp::Float>(out: &mut [T]) { out[0] = T::from_bits(3); }", Mode::Raw);
    assert!(msg.contains("`T::from_bits` is not supported: convert with"), "{msg}");
    assert_eq!((line, col), (1, 45));

    let (msg, line, col) = error("fn k(out: &mut [f32]) { atomic_add(out[0], 1.0); }", Mode::Raw);
    assert!(msg.contains("takes `&mut` of an element first"), "{msg}");
    assert_eq!((line, col), (1, 35));
}

#[test]
fn a_literal_only_a_device_function_types_is_an_error() {
    let (msg, line, col) = error("fn k(out: &mut [f32]) { let v = helper(2.0); out[0] = v; }", Mode::Raw);
    assert!(msg.contains("give it a suffix"), "{msg}");
    assert_eq!((line, col), (1, 39));
}

#[test]
fn fifty_kernels_translate_in_well_under_a_second() {
    let src = "fn k<T: xp::Float>(a: T, x: &[T], y: &[T], out: &mut [T]) {
        let t = shared_array::<f32, 256>();
        let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        t[thread_idx().x as usize] = 1.0;
        sync_threads();
        for j in (i..x.len()).step_by(4096) {
            let v = a * x[j] + y[j];
            out[j] = if v > T::from_f64(0.0) { v.sqrt() } else { v.max(a) };
        }
    }";
    let item = parse(src);
    let t0 = std::time::Instant::now();
    for _ in 0..50 {
        let g = generate(&item, Mode::Raw).unwrap();
        assert!(g.code.contains("__syncthreads();"));
    }
    let took = t0.elapsed();
    assert!(took.as_secs_f64() < 1.0, "50 translations took {took:?}");
}

#[test]
fn device_functions_take_slices_and_references() {
    let g = generate(
        &parse("fn dot(a: &[f32], b: &[f32], acc: &mut f32) { for i in 0..a.len() { *acc += a[i] * b[i]; } }"),
        Mode::Device,
    )
    .unwrap();
    assert!(
        g.code.contains("XP_DEVICE void dot(const float* a, xp::u64 a_len, const float* b, xp::u64 b_len, float& acc)"),
        "{}",
        g.code
    );
    assert!(g.code.contains("acc += (a[i] * b[i]);"), "{}", g.code);
    assert!(g.prototype.starts_with("namespace xp_user {"), "{}", g.prototype);
    let c = code("fn k(x: &[f32], out: &mut [f32]) { let mut s = 0.0f32; dot(x, x, &mut s); out[0] = s; }", Mode::Raw);
    assert!(c.contains("xp_user::dot(x, (xp::u64)x_len, x, (xp::u64)x_len, s);"), "{c}");
}
