//! Diagnostics that point at the user's code: `file:line:col`, the source line with a
//! caret under the construct, what went wrong and what to do instead.

use super::ir::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// What went wrong, one sentence.
    pub message: String,
    /// What to do instead, one sentence.
    pub hint: String,
    pub span: Span,
    /// Filled in when the diagnostic is attached to its source.
    pub location: Option<Box<Location>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub source_line: String,
    /// Width of the caret run (at least 1).
    pub width: usize,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            hint: hint.into(),
            span,
            location: None,
        }
    }

    /// Resolves the span against the file's text. A synthetic span keeps the location
    /// of whatever enclosing construct the caller already attached.
    pub fn locate(mut self, file: &str, source: &str) -> Self {
        if self.location.is_none() {
            self.location = Some(Box::new(Location::of(file, source, self.span)));
        }
        self
    }
}

impl Location {
    pub fn of(file: &str, source: &str, span: Span) -> Location {
        let start = (span.start as usize).min(source.len());
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i);
        let line = source[..start].matches('\n').count() + 1;
        let column = source[line_start..start].chars().count() + 1;
        let end = (span.end as usize).clamp(start, line_end);
        let width = source[start..end].chars().count().max(1);
        Location {
            file: file.to_owned(),
            line,
            column,
            source_line: source[line_start..line_end].to_owned(),
            width,
        }
    }
}

/// Source lines longer than this many characters are shown in part.
const MAX_SHOWN: usize = 120;

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => {
                writeln!(
                    f,
                    "{}:{}:{}: {}",
                    loc.file, loc.line, loc.column, self.message
                )?;
                let gutter = loc.line.to_string();
                let pad = " ".repeat(gutter.len());
                writeln!(f, "{pad} |")?;
                // A very long line (generated or deeply nested code) is shown as a
                // window around the column.
                let chars: Vec<char> = loc.source_line.chars().collect();
                let (from, to) = if chars.len() > MAX_SHOWN {
                    let from = (loc.column - 1).saturating_sub(MAX_SHOWN / 4);
                    (from, (from + MAX_SHOWN).min(chars.len()))
                } else {
                    (0, chars.len())
                };
                let before = if from > 0 { "..." } else { "" };
                let after = if to < chars.len() { "..." } else { "" };
                let shown: String = chars[from..to].iter().collect();
                writeln!(f, "{gutter} | {before}{shown}{after}")?;
                let indent: String = before
                    .chars()
                    .chain(chars[from..(loc.column - 1).min(to)].iter().copied())
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let width = loc.width.min(to.saturating_sub(loc.column - 1)).max(1);
                writeln!(f, "{pad} | {indent}{}", "^".repeat(width))?;
                write!(f, "hint: {}", self.hint)
            }
            None => write!(f, "{}\nhint: {}", self.message, self.hint),
        }
    }
}

impl std::error::Error for Diagnostic {}
