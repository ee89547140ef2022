//! xp
