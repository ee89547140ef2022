//! NumPy's later callables (index helpers, bit packing, polynomial arithmetic, `finfo`/`iinfo`) on the CPU backend.
