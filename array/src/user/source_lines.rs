//! Compile errors in the user's own terms: the pieces of a user kernel (a raw kernel's source,
//! an elementwise kernel's operation, a reduction's map, reduce and post-map expressions, any
//! preamble) are put in the generated code behind `#line 1 "<piece>"` directives, and a failed
//! compile's log is searched for those names, so that the error quotes the user's lines, with
//! the user's line numbers, ahead of the compiler's full output.
//!
//! Every compiler the backends use reports the presumed file and line a `#line` directive sets:
//! g++ and hiprtc (clang) as `<piece>:LINE:COL: error: …`, NVRTC as `<piece>(LINE): error: …`.
//! The code that follows a piece is marked `<generated>`, so a line of the library's wrapper is
//! never reported as a line of the user's. The names are in angle brackets so that no file of
//! the working directory can be mistaken for them (g++ quotes the file it finds by the name).

use std::fmt::Write as _;

use xp_backend_api::Error;

/// The file name of the code that follows a user piece.
pub const GENERATED: &str = "<generated>";

/// `text` as the user's piece `piece` (`"operation"`, `"preamble"`, …): on lines of its own,
/// numbered from 1 as in the user's string, followed by the generated code's marker. The
/// result starts and ends with a newline, so it can stand anywhere a line break can.
pub fn mark(piece: &str, text: &str) -> String {
    format!("\n#line 1 \"<{piece}>\"\n{text}\n#line 1 \"{GENERATED}\"\n")
}

/// One diagnostic the compiler placed in a user piece.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Located {
    piece: String,
    line: usize,
    column: Option<usize>,
    message: String,
}

/// Read `<piece>:LINE:COL: msg`, `<piece>:LINE: msg` or `<piece>(LINE): msg` at the start of
/// a log line (after any spaces).
fn locate(log_line: &str, piece: &str) -> Option<Located> {
    let file = format!("<{piece}>");
    let rest = log_line.trim_start().strip_prefix(&file)?;
    let digits = |s: &str| -> Option<(usize, usize)> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then(|| s[..n].parse().ok().map(|v| (v, n))).flatten()
    };
    let (line, column, message) = if let Some(r) = rest.strip_prefix('(') {
        let (line, n) = digits(r)?;
        let r = r[n..].strip_prefix(')')?;
        (line, None, r.trim_start_matches(':').trim())
    } else if let Some(r) = rest.strip_prefix(':') {
        let (line, n) = digits(r)?;
        let r = r[n..].strip_prefix(':')?;
        match digits(r) {
            Some((col, m)) => (line, Some(col), r[m..].trim_start_matches(':').trim()),
            None => (line, None, r.trim()),
        }
    } else {
        return None;
    };
    Some(Located { piece: piece.to_string(), line, column, message: message.to_string() })
}

fn is_error(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.starts_with("error") || m.starts_with("fatal error") || m.contains("catastrophic error")
}

/// `err` with the user's lines quoted when it is a compile error whose log names one of
/// `pieces` (each a piece's name, as given to [`mark`], and the user's text of it); any other
/// error is returned as it is.
///
/// The log becomes: one entry per error the compiler placed in a user piece (the piece, the
/// line, the message; then the user's line, and a caret under the column where the compiler
/// gives one), then the compiler's full output. When no error is placed in a user piece but
/// warnings or notes are, those are quoted instead.
pub fn explain(err: Error, kernel: &str, pieces: &[(&str, &str)]) -> Error {
    let Error::Compile { kernel: k, log, options } = err else { return err };
    let mut found: Vec<Located> = Vec::new();
    for l in log.lines() {
        for (piece, _) in pieces {
            if let Some(loc) = locate(l, piece) {
                if !found.contains(&loc) {
                    found.push(loc);
                }
            }
        }
    }
    if found.iter().any(|f| is_error(&f.message)) {
        found.retain(|f| is_error(&f.message));
    }
    if found.is_empty() {
        return Error::Compile { kernel: k, log, options };
    }
    let mut out = String::new();
    for f in &found {
        let text = pieces.iter().find(|(p, _)| *p == f.piece).map(|(_, t)| *t).unwrap_or("");
        let _ = writeln!(out, "{kernel}: {}, line {}: {}", f.piece, f.line, f.message);
        if let Some(src) = f.line.checked_sub(1).and_then(|i| text.lines().nth(i)) {
            let num = f.line.to_string();
            let _ = writeln!(out, "  {num} | {src}");
            if let Some(c) = f.column.filter(|&c| c >= 1 && c <= src.chars().count() + 1) {
                // Tabs keep their width, so the caret lines up under the user's text.
                let pad: String = src.chars().take(c - 1).map(|ch| if ch == '\t' { '\t' } else { ' ' }).collect();
                let _ = writeln!(out, "  {} | {pad}^", " ".repeat(num.len()));
            }
        }
    }
    let _ = write!(out, "\ncompiler output:\n{log}");
    Error::Compile { kernel: k, log: out, options }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_compilers_locations() {
        let g = locate("<operation>:3:7: error: expected ';' before '}' token", "operation").unwrap();
        assert_eq!((g.line, g.column, g.message.as_str()), (3, Some(7), "error: expected ';' before '}' token"));
        let n = locate("<map_expr>(2): error: identifier \"q\" is undefined", "map_expr").unwrap();
        assert_eq!((n.line, n.column), (2, None));
        assert!(n.message.starts_with("error: identifier"));
        assert!(locate("<operation>: In function 'void f()':", "operation").is_none());
        assert!(locate("<preamble>:4:1: error: x", "operation").is_none());
    }

    #[test]
    fn quotes_the_users_line_with_a_caret() {
        let err = Error::Compile {
            kernel: "k".into(),
            log: "<source>:3:9: error: 'q' was not declared in this scope\n<generated>:5:1: note: x\n".into(),
            options: String::new(),
        };
        let e = explain(err, "k", &[("source", "a\nb\n  y = q + 1;\n")]);
        let Error::Compile { log, .. } = e else { panic!("still a compile error") };
        assert!(log.starts_with("k: source, line 3: error: 'q' was not declared"), "{log}");
        assert!(log.contains("  3 |   y = q + 1;\n    |         ^\n"), "{log}");
        assert!(log.contains("compiler output:\n<source>:3:9"), "{log}");
        // Other errors pass through.
        let other = explain(Error::Unsupported("x".into()), "k", &[]);
        assert_eq!(other.kind(), "Unsupported");
    }
}
