//! Integer expressions over named values, as game files write them for derived numbers
//! (`suits * ranks`) and for rules between parameters (`tricks * players <= 52`).

/// Evaluates integer arithmetic over integer parameters (`suits * ranks`, `cards - 1`,
/// `(players + 1) / 2`): `+ - * /` (integer division), parentheses, integers and names from
/// `lookup`. One comparison (`<= < >= > == !=`) at the top makes it a check: 1 if it holds,
/// else 0.
pub fn int_expr(text: &str, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    let tokens = tokenize(text)?;
    let mut p = ExprParser { tokens: &tokens, at: 0, lookup };
    let left = p.sum()?;
    let value = match p.peek() {
        Some(Tok::Cmp(op)) => {
            let op = op.clone();
            p.at += 1;
            let right = p.sum()?;
            i64::from(match op.as_str() {
                "<=" => left <= right,
                "<" => left < right,
                ">=" => left >= right,
                ">" => left > right,
                "==" => left == right,
                _ => left != right,
            })
        }
        _ => left,
    };
    match p.peek() {
        None => Ok(value),
        Some(t) => Err(format!("`{text}`: unexpected `{t}`")),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(char),
    Cmp(String),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Name(s) | Tok::Cmp(s) => write!(f, "{s}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            out.push(Tok::Num(digits.parse().map_err(|_| format!("`{text}`: the number {digits} is too large"))?));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
        } else if "+-*/()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else if "<>=!".contains(c) {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let op = if ["<=", ">=", "==", "!="].contains(&two.as_str()) { two } else { c.to_string() };
            if op == "=" || op == "!" {
                return Err(format!("`{text}`: write `==` or `!=` to compare"));
            }
            i += op.len();
            out.push(Tok::Cmp(op));
        } else {
            return Err(format!(
                "`{text}`: `{c}` is not part of an expression (integers, parameter names, + - * / and parentheses)"
            ));
        }
    }
    Ok(out)
}

struct ExprParser<'a> {
    tokens: &'a [Tok],
    at: usize,
    lookup: &'a dyn Fn(&str) -> Option<i64>,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(Tok::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let r = self.product()?;
            v = if op == '+' { v.checked_add(r) } else { v.checked_sub(r) }.ok_or("the result is too large")?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.atom()?;
        while let Some(Tok::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let r = self.atom()?;
            v = if op == '*' {
                v.checked_mul(r).ok_or("the result is too large")?
            } else if r == 0 {
                return Err("division by zero".into());
            } else {
                v.div_euclid(r)
            };
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<i64, String> {
        let t = self.peek().cloned().ok_or("the expression ends too early")?;
        self.at += 1;
        match t {
            Tok::Num(n) => Ok(n),
            Tok::Name(name) => (self.lookup)(&name).ok_or_else(|| format!("`{name}` is not an integer parameter")),
            Tok::Op('-') => Ok(-self.atom()?),
            Tok::Op('(') => {
                let v = self.sum()?;
                match self.peek() {
                    Some(Tok::Op(')')) => {
                        self.at += 1;
                        Ok(v)
                    }
                    _ => Err("a `(` is not closed".into()),
                }
            }
            other => Err(format!("unexpected `{other}`")),
        }
    }
}

#[cfg(test)]
mod expr_tests {
    use super::int_expr;

    #[test]
    fn arithmetic_over_parameters_and_one_comparison() {
        let params = |n: &str| match n {
            "suits" => Some(4),
            "ranks" => Some(13),
            _ => None,
        };
        assert_eq!(int_expr("suits * ranks", &params), Ok(52));
        assert_eq!(int_expr("(ranks + 1) / 2 - -1", &params), Ok(8));
        assert_eq!(int_expr("suits * 13 <= 52", &params), Ok(1));
        assert_eq!(int_expr("suits * 14 <= 52", &params), Ok(0));
        assert!(int_expr("suits * jokers", &params).unwrap_err().contains("`jokers` is not"));
        assert!(int_expr("suits = 4", &params).unwrap_err().contains("`==`"));
        assert!(int_expr("4 / (suits - 4)", &params).unwrap_err().contains("division by zero"));
    }
}
