//! [`fuse`]: a traced function of [`FuseVar`]s compiled into one kernel, with NumPy's dtype
//! rules for each op (the ufuncs' own loop choice).

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use parking_lot::Mutex;
use xp_backend_api::{DType, Error, Result};
use xp_kernels::elementwise::{ElementwiseSpec, Operand as KOp};
use xp_kernels::reduce::builtin_reduce;

use super::elementwise::{launch_user, UserIn};
use super::{fnv64, next_id};
use crate::element::scalar_bytes;
use crate::layout::{broadcast_shapes, normalize_axes};
use crate::promote::{promote_types, weak_dtype, Scalar};
use crate::reduce::run_reduce_op;
use crate::ufunc::{common_device, find_op, resolve_loop, Operand};
use crate::Array;

/// A value inside a function traced by [`fuse`]: arithmetic on it records an expression.
#[derive(Debug, Clone, Copy)]
pub struct FuseVar {
    trace: u64,
    node: u32,
}

#[derive(Debug, Clone)]
enum Node {
    Input(usize),
    Const(Scalar),
    Op(&'static str, Vec<u32>),
    Reduce(&'static str, Option<Vec<isize>>, bool, u32),
    Error(String),
}

struct TraceState {
    id: u64,
    nodes: Vec<Node>,
}

thread_local! {
    static TRACE: std::cell::RefCell<Option<TraceState>> = const { std::cell::RefCell::new(None) };
}

fn push_node(trace: u64, node: Node) -> FuseVar {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        match t.as_mut() {
            Some(s) if s.id == trace => {
                s.nodes.push(node);
                FuseVar { trace, node: (s.nodes.len() - 1) as u32 }
            }
            Some(s) => {
                s.nodes.push(Node::Error("a value of another fused function was used".into()));
                FuseVar { trace: s.id, node: (s.nodes.len() - 1) as u32 }
            }
            None => panic!("a FuseVar was used outside the function fuse traces"),
        }
    })
}

impl FuseVar {
    fn op(self, name: &'static str, others: &[FuseVar]) -> FuseVar {
        let mut args = vec![self.node];
        let mut trace_ok = true;
        for o in others {
            trace_ok &= o.trace == self.trace;
            args.push(o.node);
        }
        if !trace_ok {
            return push_node(self.trace, Node::Error("values of two fused functions were mixed".into()));
        }
        push_node(self.trace, Node::Op(name, args))
    }

    fn constant(self, s: Scalar) -> FuseVar {
        push_node(self.trace, Node::Const(s))
    }

    /// Apply the elementwise op `name` (NumPy's name: `"arctan2"`, `"hypot"`…) to this value
    /// and `others`.
    pub fn ufunc(self, name: &str, others: &[FuseVar]) -> FuseVar {
        match find_op(name) {
            Some(op) if op.nin == others.len() + 1 && op.nout == 1 => self.op(op.name, others),
            _ => {
                push_node(self.trace, Node::Error(format!("no elementwise op `{name}` of {} inputs", others.len() + 1)))
            }
        }
    }

    fn reduce(self, kind: &'static str, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        push_node(self.trace, Node::Reduce(kind, axis.map(|a| a.to_vec()), keepdims, self.node))
    }

    /// Sum over `axis` (every axis when `None`); only as the function's last step.
    pub fn sum(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("sum", axis, keepdims)
    }
    /// Product over `axis`; only as the function's last step.
    pub fn prod(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("prod", axis, keepdims)
    }
    /// Largest element over `axis`; only as the function's last step.
    pub fn max(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("max", axis, keepdims)
    }
    /// Smallest element over `axis`; only as the function's last step.
    pub fn min(self, axis: Option<&[isize]>, keepdims: bool) -> FuseVar {
        self.reduce("min", axis, keepdims)
    }
    /// Elementwise maximum (NaN propagates).
    pub fn maximum(self, other: FuseVar) -> FuseVar {
        self.op("maximum", &[other])
    }
    /// Elementwise minimum (NaN propagates).
    pub fn minimum(self, other: FuseVar) -> FuseVar {
        self.op("minimum", &[other])
    }
    /// `self ** other`.
    pub fn pow(self, other: FuseVar) -> FuseVar {
        self.op("power", &[other])
    }
    /// `where(self, x, y)`.
    pub fn where_(self, x: FuseVar, y: FuseVar) -> FuseVar {
        self.op("where", &[x, y])
    }
}

macro_rules! fuse_unary {
    ($($m:ident => $op:literal),* $(,)?) => {
        impl FuseVar {
            $(
                #[doc = concat!("Elementwise `", $op, "`.")]
                pub fn $m(self) -> FuseVar {
                    self.op($op, &[])
                }
            )*
        }
    };
}
fuse_unary!(sqrt => "sqrt", exp => "exp", log => "log", sin => "sin", cos => "cos", tan => "tan", tanh => "tanh",
    abs => "absolute", square => "square", floor => "floor", ceil => "ceil", reciprocal => "reciprocal");

macro_rules! fuse_binary {
    ($($tr:ident :: $m:ident => $op:literal),* $(,)?) => {
        $(
            impl std::ops::$tr for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    self.op($op, &[o])
                }
            }
            impl std::ops::$tr<f64> for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: f64) -> FuseVar {
                    let c = self.constant(Scalar::Float(o));
                    self.op($op, &[c])
                }
            }
            impl std::ops::$tr<i64> for FuseVar {
                type Output = FuseVar;
                fn $m(self, o: i64) -> FuseVar {
                    let c = self.constant(Scalar::Int(o as i128));
                    self.op($op, &[c])
                }
            }
            impl std::ops::$tr<FuseVar> for f64 {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    o.constant(Scalar::Float(self)).op($op, &[o])
                }
            }
            impl std::ops::$tr<FuseVar> for i64 {
                type Output = FuseVar;
                fn $m(self, o: FuseVar) -> FuseVar {
                    o.constant(Scalar::Int(self as i128)).op($op, &[o])
                }
            }
        )*
    };
}
fuse_binary!(Add::add => "add", Sub::sub => "subtract", Mul::mul => "multiply", Div::div => "true_divide",
    Rem::rem => "remainder");

impl std::ops::Neg for FuseVar {
    type Output = FuseVar;
    fn neg(self) -> FuseVar {
        self.op("negative", &[])
    }
}

/// The dtype of each argument of a fused call, and whether it is a scalar.
type PlanKey = Vec<(DType, bool)>;

/// A traced function: its nodes and the result's node.
type Trace = Arc<(Vec<Node>, u32)>;

/// A function of `N` arguments fused into one kernel; see [`fuse`].
pub struct Fused<const N: usize, F> {
    name: String,
    f: F,
    id: u64,
    trace: Mutex<Option<Trace>>,
    plans: Mutex<HashMap<PlanKey, Arc<FusedPlan>>>,
}

impl<const N: usize, F> std::fmt::Debug for Fused<N, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fused").field("name", &self.name).field("arity", &N).finish()
    }
}

/// What one dtype combination of a fused function compiles to.
struct FusedPlan {
    /// The elementwise part: body over `in0…`, setting `out0`.
    body: String,
    preamble: String,
    out_dtype: DType,
    /// Per input: by-value (weak scalar) and its carrier dtype.
    inputs: Vec<(bool, DType)>,
    /// The final reduction: kind, axis, keepdims.
    reduce: Option<(&'static str, Option<Vec<isize>>, bool)>,
}

/// Fuse `f` — a function of `N` arrays or scalars written with [`FuseVar`] arithmetic, elementwise
/// ops and at most one reduction as its last step — into one kernel, as `cupy.fuse`.
///
/// The function is traced once, at its first call; each combination of argument dtypes is
/// compiled once. Dtypes follow NumPy's rules for each op (the same loops as the unfused ops),
/// with scalars weak.
///
/// ```
/// # use std::sync::Arc;
/// # xp_array::register_backend(Arc::new(xp_backend_api::BackendHandle::<xp_backend_cpu::CpuBackend>::default()));
/// # let d = xp_array::device("cpu").unwrap();
/// # xp_array::with_device(&d, || {
/// use xp_array::{arange, user::fuse, DType};
/// let squared_diff = fuse("squared_diff", |[x, y]| (x - y) * (x - y));
/// let x = arange(0.0, 4.0, 1.0, Some(DType::F32)).unwrap();
/// let z = squared_diff.call(&[(&x).into(), 1.0.into()]).unwrap();
/// assert_eq!(z.to_vec::<f32>().unwrap(), [1.0, 0.0, 1.0, 4.0]);
/// # });
/// ```
pub fn fuse<const N: usize, F: Fn([FuseVar; N]) -> FuseVar>(name: &str, f: F) -> Fused<N, F> {
    Fused { name: name.to_string(), f, id: next_id(), trace: Mutex::new(None), plans: Mutex::new(HashMap::new()) }
}

impl<const N: usize, F: Fn([FuseVar; N]) -> FuseVar> Fused<N, F> {
    fn traced(&self) -> Result<Trace> {
        if let Some(t) = self.trace.lock().as_ref() {
            return Ok(Arc::clone(t));
        }
        let id = next_id();
        let busy = TRACE.with(|t| {
            let mut t = t.borrow_mut();
            if t.is_some() {
                return true;
            }
            *t = Some(TraceState { id, nodes: (0..N).map(Node::Input).collect() });
            false
        });
        if busy {
            return Err(Error::Unsupported(format!("{}: a fused function cannot call another one", self.name)));
        }
        struct Clear;
        impl Drop for Clear {
            fn drop(&mut self) {
                TRACE.with(|t| *t.borrow_mut() = None);
            }
        }
        let clear = Clear;
        let vars: [FuseVar; N] = std::array::from_fn(|k| FuseVar { trace: id, node: k as u32 });
        let root = (self.f)(vars);
        let nodes = TRACE.with(|t| t.borrow_mut().take().map(|s| s.nodes).unwrap_or_default());
        drop(clear);
        if root.trace != id {
            return Err(Error::value(&self.name, "the fused function returned a value it did not compute"));
        }
        let traced = Arc::new((nodes, root.node));
        *self.trace.lock() = Some(Arc::clone(&traced));
        Ok(traced)
    }

    /// The identity of the function's closure type (two `fuse` calls on one closure type
    /// trace the same code).
    pub fn type_id(&self) -> TypeId
    where
        F: 'static,
    {
        TypeId::of::<F>()
    }

    /// Run the fused function on `args` (arrays or scalars).
    pub fn call(&self, args: &[Operand<'_>]) -> Result<Array> {
        if args.len() != N {
            return Err(Error::value(&self.name, format!("takes {N} arguments, {} given", args.len())));
        }
        let traced = self.traced()?;
        let key: Vec<(DType, bool)> = args
            .iter()
            .map(|a| match a {
                Operand::Array(a) => (a.dtype(), false),
                Operand::Scalar(s) => (s.default_dtype(), true),
            })
            .collect();
        let plan = {
            let cached = self.plans.lock().get(&key).cloned();
            match cached {
                Some(p) => p,
                None => {
                    let p = Arc::new(self.plan(&traced, args)?);
                    self.plans.lock().insert(key.clone(), Arc::clone(&p));
                    p
                }
            }
        };
        let arrays: Vec<&Array> = args
            .iter()
            .filter_map(|a| match a {
                Operand::Array(a) => Some(*a),
                _ => None,
            })
            .collect();
        let device = common_device(&self.name, &arrays)?;
        let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
        let shape = broadcast_shapes(&self.name, &shapes)?;
        let mut holders = Vec::new();
        let mut values = Vec::new();
        for (a, (by_value, carrier)) in args.iter().zip(&plan.inputs) {
            match a {
                Operand::Array(a) => {
                    holders.push(a.broadcast_to(&shape)?);
                    values.push(None);
                }
                Operand::Scalar(s) => {
                    debug_assert!(*by_value);
                    values.push(Some(scalar_bytes(*s, *carrier)?));
                }
            }
        }
        let mut h = holders.iter();
        let user_in: Vec<UserIn<'_>> = values
            .into_iter()
            .map(|v| match v {
                Some(b) => UserIn::Value(b.to_vec()),
                None => UserIn::Array(h.next().expect("one holder per array")),
            })
            .collect();
        let ins: Vec<KOp> = plan
            .inputs
            .iter()
            .zip(args)
            .map(|((by_value, carrier), a)| match a {
                Operand::Array(a) if !by_value => KOp::array(a.dtype(), a.dtype()),
                _ => KOp::scalar(*carrier, *carrier),
            })
            .collect();
        let mut key_s = format!("fuse|{}|", self.id);
        for (d, s) in &key {
            let _ = write!(key_s, "{}{}|", d.short(), s);
        }
        // A reduction of one array input: the expression is the reduction's map, one kernel.
        if let Some((kind, axis, keepdims)) = &plan.reduce {
            let single = args.len() == 1 && matches!(args[0], Operand::Array(_));
            if single {
                let x = &holders[0];
                let axes: Vec<usize> = match axis {
                    None => (0..x.ndim()).collect(),
                    Some(ax) => normalize_axes(&self.name, ax, x.ndim())?,
                };
                let mut op = builtin_reduce(kind, plan.out_dtype, 0)?;
                let hash = fnv64(&key_s);
                let f = format!("xp_fuse_map_{hash:016x}");
                let (inc, exc) = (x.dtype().c_name(), plan.out_dtype.c_name());
                let _ = write!(
                    op.preamble,
                    "\n{}\n#ifndef XP_FUSE_MAP_{hash:016x}\n#define XP_FUSE_MAP_{hash:016x} 1\n\
                     XP_DEVICE {exc} {f}(const {inc} in0) {{ {exc} out0;\n{}\nreturn out0; }}\n#endif\n",
                    plan.preamble, plan.body
                );
                op.map = op.map.replace("in0", &format!("{f}(in0)"));
                op.in_type = x.dtype();
                op.name = self.name.clone();
                let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).map(|d| x.shape()[d]).collect();
                let res = run_reduce_op(&device, &op, x, &axes, &kept)?;
                if *keepdims {
                    let kd: Vec<isize> =
                        (0..x.ndim()).map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] as isize }).collect();
                    return res.reshape(&kd);
                }
                return Ok(res);
            }
        }
        let out = Array::empty_on(&device, &shape, plan.out_dtype)?;
        launch_user(
            &self.name,
            &device,
            &shape,
            &key_s,
            |layout, index| ElementwiseSpec {
                op: self.name.clone(),
                inputs: ins.clone(),
                outputs: vec![KOp::array(plan.out_dtype, plan.out_dtype)],
                body: format!("{{\n{}\n}}", plan.body),
                preamble: plan.preamble.clone(),
                layout,
                index,
                fast: None,
            },
            &user_in,
            &[&out],
        )?;
        match &plan.reduce {
            None => Ok(out),
            Some((kind, axis, keepdims)) => match *kind {
                "sum" => out.sum(axis.as_deref(), *keepdims),
                "prod" => out.prod(axis.as_deref(), *keepdims),
                "max" => out.max(axis.as_deref(), *keepdims),
                _ => out.min(axis.as_deref(), *keepdims),
            },
        }
    }

    /// Resolve dtypes and write the code for arguments like `args`.
    fn plan(&self, traced: &(Vec<Node>, u32), args: &[Operand<'_>]) -> Result<FusedPlan> {
        let (nodes, root) = (&traced.0, traced.1 as usize);
        let (expr_root, reduce) = match &nodes[root] {
            Node::Reduce(kind, axis, keepdims, src) => (*src as usize, Some((*kind, axis.clone(), *keepdims))),
            _ => (root, None),
        };
        // Which nodes the result needs.
        let mut need = vec![false; nodes.len()];
        need[expr_root] = true;
        for k in (0..=expr_root).rev() {
            if !need[k] {
                continue;
            }
            match &nodes[k] {
                Node::Op(_, a) => a.iter().for_each(|&s| need[s as usize] = true),
                Node::Reduce(..) => {
                    return Err(Error::value(&self.name, "a fused function may reduce only as its last step"))
                }
                Node::Error(e) => return Err(Error::value(&self.name, e.clone())),
                _ => {}
            }
        }
        #[derive(Clone, Copy)]
        enum Ty {
            Strong(DType),
            Weak(Scalar),
        }
        let carrier = |s: &Scalar| s.default_dtype();
        let mut tys: Vec<Option<Ty>> = vec![None; nodes.len()];
        let mut body = String::new();
        let mut preambles: Vec<&'static str> = Vec::new();
        let mut inputs = Vec::new();
        for a in args {
            inputs.push(match a {
                Operand::Array(a) => (false, a.dtype()),
                Operand::Scalar(s) => (true, carrier(s)),
            });
        }
        for k in 0..=expr_root {
            if !need[k] {
                continue;
            }
            let ty = match &nodes[k] {
                Node::Input(j) => {
                    let t = match args[*j] {
                        Operand::Array(a) => Ty::Strong(a.dtype()),
                        Operand::Scalar(s) => Ty::Weak(s),
                    };
                    let c = inputs[*j].1.c_name();
                    let _ = writeln!(body, "const {c} v{k} = in{j};");
                    t
                }
                Node::Const(s) => {
                    let lit = match *s {
                        Scalar::Bool(b) => format!("const bool v{k} = {b};"),
                        Scalar::Int(i) => format!("const xp::i64 v{k} = (xp::i64)({i}LL);"),
                        Scalar::Float(f) => format!("const double v{k} = xp::bits_to_f64({}ull);", f.to_bits()),
                        Scalar::Complex(re, im) => format!(
                            "const xp::c128 v{k} = xp::c128(xp::bits_to_f64({}ull), xp::bits_to_f64({}ull));",
                            re.to_bits(),
                            im.to_bits()
                        ),
                    };
                    body.push_str(&lit);
                    body.push('\n');
                    Ty::Weak(*s)
                }
                Node::Op(name, srcs) => {
                    let op = find_op(name).ok_or_else(|| Error::Unsupported(format!("{name}: no such op")))?;
                    let src_tys: Vec<Ty> =
                        srcs.iter().map(|&s| tys[s as usize].expect("operands come first")).collect();
                    let strong = src_tys
                        .iter()
                        .filter_map(|t| match t {
                            Ty::Strong(d) => Some(*d),
                            Ty::Weak(_) => None,
                        })
                        .reduce(promote_types);
                    let dts: Vec<DType> = src_tys
                        .iter()
                        .map(|t| match t {
                            Ty::Strong(d) => Ok(*d),
                            Ty::Weak(s) => match strong {
                                Some(st) => weak_dtype(name, st, s),
                                None => Ok(s.default_dtype()),
                            },
                        })
                        .collect::<Result<_>>()?;
                    let lp = resolve_loop(op, &dts)?;
                    let (lin, lout) = lp.dtypes();
                    if !preambles.contains(&op.preamble) {
                        preambles.push(op.preamble);
                    }
                    let oc = lout[0].c_name();
                    let _ = writeln!(body, "{oc} v{k};");
                    body.push_str("{\n");
                    for (j, (&s, d)) in srcs.iter().zip(&lin).enumerate() {
                        let _ = writeln!(body, "  const {c} in{j} = xp::cast<{c}>(v{s});", c = d.c_name());
                    }
                    let _ = writeln!(body, "  {oc} out0;\n  {}\n  v{k} = out0;\n}}", lp.body.unwrap_or(op.body));
                    Ty::Strong(lout[0])
                }
                _ => unreachable!("checked above"),
            };
            tys[k] = Some(ty);
        }
        let out_dtype = match tys[expr_root].expect("computed") {
            Ty::Strong(d) => d,
            Ty::Weak(s) => s.default_dtype(),
        };
        let _ = writeln!(body, "out0 = xp::cast<{}>(v{expr_root});", out_dtype.c_name());
        let preamble = preambles.iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("\n");
        Ok(FusedPlan { body, preamble, out_dtype, inputs, reduce })
    }
}
