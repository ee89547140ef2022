//! What only the CPU backend needs of this crate: the kernels it builds ahead of time, the
//! entry points it calls them through, the rewrite of dynamic shared memory into its per-block
//! scratch, and whether a kernel needs its threads run as fibers.

use crate::plan::TargetKind;
use crate::render::Rendered;

/// Every kernel the CPU backend builds ahead of time: what the array layer launches there.
pub fn cpu_builtin_kernels() -> Vec<Rendered> {
    let mut v = crate::elementwise::builtin_kernels();
    v.extend(crate::index::builtin_kernels());
    v.extend(crate::binning::builtin_kernels());
    v.extend(crate::special::builtin_kernels());
    v.extend(crate::reduce::builtin_reduce_kernels(TargetKind::Cpu));
    v.extend(crate::scan::builtin_scan_kernels(TargetKind::Cpu));
    v.extend(crate::signal::builtin_kernels());
    v.extend(crate::sort::builtin_kernels());
    v.extend(crate::random::builtin_kernels());
    v.extend(crate::sparse::builtin_kernels());
    v
}

/// Whether `code` uses a block-wide barrier (such kernels run their threads as fibers on
/// the CPU backend).
pub fn uses_barrier(code: &str) -> bool {
    let clean = crate::strip_comments(code);
    clean.contains("__syncthreads")
}

/// The CPU entry points of kernels `names`, appended to a translation unit that defines them:
/// for each kernel `K`, `xp_cpu_blocks_K` (runs a range of blocks, threads in turn),
/// `xp_cpu_thread_K` (runs one thread whose indices the launcher set; for fibers) and
/// `xp_cpu_nparams_K` (its parameter count). Arguments arrive as an array of pointers to their
/// values, unpacked against the kernel's own signature.
pub fn cpu_entry_points(names: &[String]) -> String {
    let mut s = String::new();
    for k in names {
        s.push_str(&format!(
            "extern \"C\" void xp_cpu_blocks_{k}(void** a, xp::cpu::Ctx* c, unsigned long long b0, unsigned long long b1) \
             {{ xp::cpu::run_blocks({k}, a, c, b0, b1); }}\n\
             extern \"C\" void xp_cpu_thread_{k}(void** a, xp::cpu::Ctx* c) {{ xp::cpu::run_thread({k}, a, c); }}\n\
             extern \"C\" int xp_cpu_nparams_{k}() {{ return xp::cpu::param_count({k}); }}\n"
        ));
    }
    s
}

/// Rewrite `extern __shared__ T name[];` (dynamic shared memory) for the CPU, where it becomes
/// the launch's per-block scratch buffer.
pub fn cpu_dynamic_shared(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(pos) = rest.find("extern") {
        let after = &rest[pos + 6..];
        let t = after.trim_start();
        if let Some(decl) = t.strip_prefix("__shared__") {
            if let Some(semi) = decl.find(';') {
                let d = decl[..semi].trim();
                // `T name[]` possibly with qualifiers / alignment attributes before T.
                if let Some(d) = d.strip_suffix(']').and_then(|d| d.trim_end().strip_suffix('[')) {
                    let d = d.trim_end();
                    let name = crate::trailing_ident(d);
                    let ty = d[..d.len() - name.len()].trim();
                    let ty = ty.split("__align__").next().unwrap_or(ty).trim();
                    out.push_str(&rest[..pos]);
                    out.push_str(&format!("\n#define {name} (({ty}*)(xp::cpu::ctx->dyn_shared))\n"));
                    rest = &decl[semi + 1..];
                    continue;
                }
            }
        }
        out.push_str(&rest[..pos + 6]);
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barriers_outside_comments_need_fibers() {
        assert!(!uses_barrier("extern \"C\" __global__ void my_add(const float* x) {}"));
        assert!(uses_barrier("__global__ void k() { __syncthreads(); }"));
        assert!(!uses_barrier("__global__ void k() { /* __syncthreads(); */ }"));
    }

    #[test]
    fn dynamic_shared_memory_becomes_the_launch_scratch() {
        let code = "extern __shared__ double __align__(16) buf[];\n__global__ void k() { buf[0] = 1; }";
        let out = cpu_dynamic_shared(code);
        assert!(out.contains("#define buf ((double*)(xp::cpu::ctx->dyn_shared))"), "{out}");
        assert!(!out.contains("__shared__"));
        let e = cpu_entry_points(&["k".to_string()]);
        assert!(e.contains("xp_cpu_blocks_k") && e.contains("xp_cpu_thread_k") && e.contains("xp_cpu_nparams_k"));
    }
}
