//! Lines typed by people (or piped in), read with a cap: a line of any length is not
//! buffered whole, and input that is not UTF-8 is named as such.

use std::io::BufRead;

/// The longest input line `play` accepts.
pub const MAX_LINE: usize = 4096;

/// Why a line could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum InputError {
    /// The line was longer than [`MAX_LINE`] bytes (the rest of it was skipped).
    TooLong,
    /// The line was not UTF-8 text.
    NotText,
    /// Reading failed.
    Io(String),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::TooLong => write!(f, "the line is longer than {MAX_LINE} bytes"),
            InputError::NotText => write!(f, "the line is not UTF-8 text"),
            InputError::Io(e) => write!(f, "cannot read input: {e}"),
        }
    }
}

/// Reads lines of at most [`MAX_LINE`] bytes.
pub struct Lines<R> {
    reader: R,
}

impl<R: BufRead> Lines<R> {
    /// Lines from `reader`.
    pub fn new(reader: R) -> Self {
        Lines { reader }
    }

    /// The next line without its line break; `Ok(None)` at the end of input.
    pub fn next_line(&mut self) -> Result<Option<String>, InputError> {
        let mut line = Vec::new();
        let mut too_long = false;
        loop {
            let buf = self.reader.fill_buf().map_err(|e| InputError::Io(e.to_string()))?;
            if buf.is_empty() {
                if line.is_empty() && !too_long {
                    return Ok(None);
                }
                break;
            }
            let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..i], i + 1),
                None => (buf, buf.len()),
            };
            let ended = done > chunk.len();
            if !too_long && line.len() + chunk.len() <= MAX_LINE {
                line.extend_from_slice(chunk);
            } else {
                too_long = true;
                line.clear();
            }
            self.reader.consume(done);
            if ended {
                break;
            }
        }
        if too_long {
            return Err(InputError::TooLong);
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        String::from_utf8(line).map(Some).map_err(|_| InputError::NotText)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_binary_lines_are_refused_and_skipped() {
        let mut text = b"first\r\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        text.extend(b"\n\xff\xfe\nlast");
        let mut lines = Lines::new(&text[..]);
        assert_eq!(lines.next_line(), Ok(Some("first".into())));
        assert_eq!(lines.next_line(), Err(InputError::TooLong));
        assert_eq!(lines.next_line(), Err(InputError::NotText));
        assert_eq!(lines.next_line(), Ok(Some("last".into())));
        assert_eq!(lines.next_line(), Ok(None));
    }
}
