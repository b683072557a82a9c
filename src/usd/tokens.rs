//! The words of USD's text syntax (`.usda`) as a reader meets them: punctuation, names,
//! numbers, strings, paths and asset paths, each with its line number, comments skipped.
//! Numbers stay text until the reader asks for one, so a value it skips costs no parsing.

/// The most characters of a name or string from the file that a message quotes.
pub(crate) const MAX_QUOTED_CHARS: usize = 200;

/// `text` as a message quotes it: cut to [`MAX_QUOTED_CHARS`] characters, saying how many
/// more there were (errors are escaped for the terminal where they are printed).
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        None => text.to_string(),
        Some((end, _)) => format!(
            "{}… ({} more characters)",
            &text[..end],
            text[end..].chars().count()
        ),
    }
}

/// One word of a `.usda` file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Token<'a> {
    /// `( ) [ ] { } = , : ;` and the like.
    Punct(u8),
    /// A name: `def`, `float3[]`'s `float3`, `primvars:displayColor`, `points.timeSamples`.
    Ident(&'a str),
    /// A number as written (`-1.5e-3`).
    Number(&'a str),
    /// A quoted string's content, escapes left as written.
    Str(&'a str),
    /// `</a/b>` or `@asset.usd@`: skipped by the reader.
    Path,
    /// The end of the text.
    End,
}

/// What went wrong splitting the text: the line and what was found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TokenError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, in words.
    pub message: String,
}

/// Splits a `.usda` text into tokens, one at a time.
pub(crate) struct Tokens<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    last_line: usize,
    peeked: Option<(Token<'a>, usize)>,
}

impl<'a> Tokens<'a> {
    /// Tokens of `text`, from its start (the `#usda` header is a comment to the tokenizer).
    pub(crate) fn new(text: &'a str) -> Self {
        Tokens {
            text,
            at: 0,
            line: 1,
            last_line: 1,
            peeked: None,
        }
    }

    /// The line where the token last returned or peeked starts.
    pub(crate) fn line(&self) -> usize {
        self.peeked.map_or(self.last_line, |(_, line)| line)
    }

    /// The next token without taking it, and the line it starts on.
    pub(crate) fn peek(&mut self) -> Result<(Token<'a>, usize), TokenError> {
        if let Some(p) = self.peeked {
            return Ok(p);
        }
        let p = self.scan_with_line()?;
        self.peeked = Some(p);
        Ok(p)
    }

    /// Takes the next token.
    pub(crate) fn next_token(&mut self) -> Result<Token<'a>, TokenError> {
        let (t, line) = match self.peeked.take() {
            Some(p) => p,
            None => self.scan_with_line()?,
        };
        self.last_line = line;
        Ok(t)
    }

    /// The next token and the line it starts on.
    fn scan_with_line(&mut self) -> Result<(Token<'a>, usize), TokenError> {
        self.skip_blank();
        let line = self.line;
        Ok((self.scan()?, line))
    }

    fn error(&self, message: String) -> TokenError {
        TokenError {
            line: self.line,
            message,
        }
    }

    /// Skips blanks and `#` comments, counting lines.
    fn skip_blank(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'\n' => {
                    self.line += 1;
                    self.at += 1;
                }
                b' ' | b'\t' | b'\r' => self.at += 1,
                b'#' => {
                    while bytes.get(self.at).is_some_and(|&c| c != b'\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn scan(&mut self) -> Result<Token<'a>, TokenError> {
        self.skip_blank();
        let bytes = self.text.as_bytes();
        let start = self.at;
        let Some(&b) = bytes.get(start) else {
            return Ok(Token::End);
        };
        let is_name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'.');
        match b {
            b'"' | b'\'' => self.string(b),
            b'<' | b'@' => {
                let close = if b == b'<' { b'>' } else { b'@' };
                let end = bytes[start + 1..]
                    .iter()
                    .position(|&c| c == close || c == b'\n')
                    .map(|i| start + 1 + i)
                    .filter(|&i| bytes[i] == close)
                    .ok_or_else(|| self.error(format!("a `{}` that is never closed", b as char)))?;
                self.at = end + 1;
                Ok(Token::Path)
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                let mut end = start + 1;
                while let Some(&c) = bytes.get(end) {
                    let exponent_sign =
                        matches!(c, b'-' | b'+') && matches!(bytes[end - 1], b'e' | b'E');
                    if c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E') || exponent_sign {
                        end += 1;
                    } else {
                        break;
                    }
                }
                // `-inf`, `-nan`: a sign before a name.
                if end == start + 1 && matches!(b, b'-' | b'+') {
                    if bytes.get(end).is_some_and(|c| c.is_ascii_alphabetic()) {
                        while bytes.get(end).is_some_and(|&c| is_name(c)) {
                            end += 1;
                        }
                        self.at = end;
                        return Ok(Token::Ident(&self.text[start..end]));
                    }
                    self.at = end;
                    return Ok(Token::Punct(b));
                }
                self.at = end;
                Ok(Token::Number(&self.text[start..end]))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut end = start + 1;
                while bytes.get(end).is_some_and(|&c| is_name(c)) {
                    end += 1;
                }
                // A name never ends in `:` (namespaces join names: `primvars:widths`).
                while end > start + 1 && bytes[end - 1] == b':' {
                    end -= 1;
                }
                self.at = end;
                Ok(Token::Ident(&self.text[start..end]))
            }
            c if c.is_ascii_punctuation() => {
                self.at += 1;
                Ok(Token::Punct(c))
            }
            _ => {
                let c = self.text[start..].chars().next().unwrap_or('?');
                Err(self.error(format!(
                    "unexpected character {} (U+{:04X})",
                    c.escape_debug(),
                    c as u32
                )))
            }
        }
    }

    /// A string quoted by `q`, single or triple (`"""…"""` may span lines).
    fn string(&mut self, q: u8) -> Result<Token<'a>, TokenError> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let triple = bytes.get(start..start + 3) == Some(&[q, q, q][..]);
        let open = if triple { 3 } else { 1 };
        let mut i = start + open;
        let first_line = self.line;
        loop {
            let Some(&c) = bytes.get(i) else {
                return Err(TokenError {
                    line: first_line,
                    message: "a string that is never closed".into(),
                });
            };
            match c {
                b'\\' => i += 2,
                b'\n' if !triple => {
                    return Err(TokenError {
                        line: first_line,
                        message: "a string that runs past the end of its line".into(),
                    });
                }
                b'\n' => {
                    self.line += 1;
                    i += 1;
                }
                _ if c == q && (!triple || bytes.get(i..i + 3) == Some(&[q, q, q][..])) => {
                    let content = self.text.get(start + open..i).unwrap_or("");
                    self.at = i + open;
                    return Ok(Token::Str(content));
                }
                _ => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(Token<'_>, usize)> {
        let mut t = Tokens::new(text);
        let mut out = Vec::new();
        loop {
            let (tok, line) = t.peek().unwrap();
            t.next_token().unwrap();
            if tok == Token::End {
                return out;
            }
            out.push((tok, line));
        }
    }

    #[test]
    fn a_property_line_splits_into_its_words() {
        let toks = all("#usda 1.0\ncolor3f[] primvars:displayColor = [(1, -2.5e-3, .5)] # c\n");
        let words: Vec<Token> = toks.iter().map(|t| t.0).collect();
        assert_eq!(
            words,
            vec![
                Token::Ident("color3f"),
                Token::Punct(b'['),
                Token::Punct(b']'),
                Token::Ident("primvars:displayColor"),
                Token::Punct(b'='),
                Token::Punct(b'['),
                Token::Punct(b'('),
                Token::Number("1"),
                Token::Punct(b','),
                Token::Number("-2.5e-3"),
                Token::Punct(b','),
                Token::Number(".5"),
                Token::Punct(b')'),
                Token::Punct(b']'),
            ]
        );
        assert!(toks.iter().all(|t| t.1 == 2));
    }

    #[test]
    fn time_samples_strings_and_paths_keep_their_lines() {
        let toks = all("{ 0: [1],\n 2.5: [2] }\n\"\"\"a\nb\"\"\" </x/y> -inf");
        assert!(toks.contains(&(Token::Number("2.5"), 2)));
        assert!(toks.contains(&(Token::Punct(b':'), 2)));
        assert!(toks.contains(&(Token::Str("a\nb"), 3)));
        assert!(toks.contains(&(Token::Path, 4)));
        assert!(toks.contains(&(Token::Ident("-inf"), 4)));
    }

    #[test]
    fn unclosed_strings_and_paths_name_their_line() {
        for (text, line) in [("\n\"abc", 2), ("x\n\n<a/b", 3), ("'''\n\n", 1)] {
            let mut t = Tokens::new(text);
            let e = loop {
                match t.next_token() {
                    Ok(Token::End) => panic!("{text:?} tokenized"),
                    Ok(_) => {}
                    Err(e) => break e,
                }
            };
            assert_eq!(e.line, line, "{text:?}: {}", e.message);
            assert!(e.message.contains("never closed") || e.message.contains("past the end"));
        }
    }
}
