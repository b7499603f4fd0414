//! Conditions: what an `if`, a `while` or `do` loop, `&&`, `||` and `!` test, worked out as a
//! Rust `bool` instead of a script value made, tested and dropped. A comparison of two integers
//! is made inline (read where they lie when they are local variables or constants); anything
//! else is the expression's value, which must be a `bool` (else compiled code gives up and
//! Rhai reports the error).

use super::{binary_in_place, peek_props, same_text, Lower, Root, U};
use crate::compiled::discard::discard;
use crate::compiled::natives::Native;
use crate::compiled::{bailed, ops, Rt, R};
use rhai::{Dynamic, Expr, ImmutableString, Token, INT};

/// A compiled condition: reads and writes the call's slots, yields the truth of its expression.
pub(in crate::compiled) type Cond = Box<dyn Fn(&mut [Dynamic], &mut Rt) -> R<bool> + Send + Sync>;

/// The comparison operators, as a condition tests them on two integers.
#[derive(Clone, Copy)]
enum Compare {
    Equal,
    NotEqual,
    Less,
    Greater,
    LessOrEqual,
    GreaterOrEqual,
}

impl Compare {
    fn of(op: &Token) -> Option<Compare> {
        Some(match op {
            Token::EqualsTo => Compare::Equal,
            Token::NotEqualsTo => Compare::NotEqual,
            Token::LessThan => Compare::Less,
            Token::GreaterThan => Compare::Greater,
            Token::LessThanEqualsTo => Compare::LessOrEqual,
            Token::GreaterThanEqualsTo => Compare::GreaterOrEqual,
            _ => return None,
        })
    }

    #[inline]
    fn ints(self, p: INT, q: INT) -> bool {
        match self {
            Compare::Equal => p == q,
            Compare::NotEqual => p != q,
            Compare::Less => p < q,
            Compare::Greater => p > q,
            Compare::LessOrEqual => p <= q,
            Compare::GreaterOrEqual => p >= q,
        }
    }
}

/// Whether `op` compares (`==`, `!=`, `<`, `>`, `<=`, `>=`).
pub(super) fn is_comparison(op: &Token) -> bool {
    Compare::of(op).is_some()
}

/// The truth of a value a condition got: only a `bool` has one (Rhai reports anything else).
#[inline]
fn truth(v: Dynamic) -> R<bool> {
    let b = v.as_bool().map_err(|_| bailed());
    discard(v);
    b
}

impl Lower<'_> {
    /// `e` as a condition.
    pub(super) fn cond(&mut self, e: &Expr) -> U<Cond> {
        match e {
            Expr::BoolConstant(b, ..) => {
                let b = *b;
                return Ok(Box::new(move |_, _| Ok(b)));
            }
            Expr::And(list, ..) | Expr::Or(list, ..) => {
                // `&&` stops at the first `false`, `||` at the first `true`: that is its value.
                let is_and = matches!(e, Expr::And(..));
                let list = list.iter().map(|p| self.cond(p)).collect::<U<Vec<_>>>()?;
                return Ok(Box::new(move |s, rt| {
                    for c in &list {
                        if c(s, rt)? != is_and {
                            return Ok(!is_and);
                        }
                    }
                    Ok(is_and)
                }));
            }
            Expr::FnCall(f, ..) if !f.capture_parent_scope => match (&f.op_token, f.args.as_slice()) {
                (Some(Token::Bang), [x]) => {
                    let x = self.cond(x)?;
                    return Ok(Box::new(move |s, rt| Ok(!x(s, rt)?)));
                }
                (Some(op @ (Token::EqualsTo | Token::NotEqualsTo)), [x, Expr::StringConstant(text, ..)]) => {
                    let natives = self.natives.list(&f.name, 2).map(<[Native]>::to_vec);
                    return self.equals_text_cond(op.clone(), natives, x, super::unshared_str(text));
                }
                (Some(op), [x, y]) if Compare::of(op).is_some() => return self.comparison(op.clone(), &f.name, x, y),
                _ => {}
            },
            _ => {}
        }
        let c = self.expr(e)?;
        Ok(Box::new(move |s, rt| truth(c(s, rt)?)))
    }

    /// `x op y` for a comparison operator (see [`is_comparison`]): integers compared inline,
    /// anything else as Rhai's operator. A local variable or an integer constant is read where
    /// it is, not copied: the right operand whatever the left one is (it is read after the left
    /// one is evaluated, as Rhai reads it), the left one only when the right one is read in
    /// place too (nothing runs between the two reads).
    pub(super) fn comparison(&mut self, op: Token, name: &ImmutableString, x: &Expr, y: &Expr) -> U<Cond> {
        if let Some(c) = self.unit_comparison(&op, name, x, y)? {
            return Ok(c);
        }
        let natives = self.natives.list(name, 2).map(<[Native]>::to_vec);
        let cmp = Compare::of(&op).ok_or_else(|| format!("operator `{name}`"))?;
        match (self.in_place(x), self.in_place(y)) {
            (Some(a), Some(b)) => Ok(Box::new(move |s, rt| {
                let (a, b) = (a.get(s), b.get(s));
                if let Some((p, q)) = ops::ints(a, b) {
                    return Ok(cmp.ints(p, q));
                }
                truth(binary_in_place(rt, &op, natives.as_deref(), a, b)?)
            })),
            (None, Some(b)) => {
                let x = self.expr(x)?;
                Ok(Box::new(move |s, rt| {
                    let a = x(s, rt)?;
                    let b = b.get(s);
                    if let Some((p, q)) = ops::ints(&a, b) {
                        discard(a);
                        return Ok(cmp.ints(p, q));
                    }
                    truth(binary_in_place(rt, &op, natives.as_deref(), &a, b)?)
                }))
            }
            _ => {
                let x = self.expr(x)?;
                let y = self.expr(y)?;
                Ok(Box::new(move |s, rt| {
                    let a = x(s, rt)?;
                    let b = y(s, rt)?;
                    if let Some((p, q)) = ops::ints(&a, &b) {
                        discard(a);
                        discard(b);
                        return Ok(cmp.ints(p, q));
                    }
                    truth(ops::binary(rt, &op, natives.as_deref(), a, b)?)
                }))
            }
        }
    }

    /// `x == ()` or `x != ()` (`()` on either side): whether the other operand is `()`, asked
    /// where it lies, without a copy or the operator's lookup. As Rhai's operator (see
    /// [`ops::builtin_binary`]), `()` equals `()` only; a range, which Rhai compares by rules
    /// of its own, and an engine operator that takes `()` are left to the general way (`None`).
    fn unit_comparison(&mut self, op: &Token, name: &ImmutableString, x: &Expr, y: &Expr) -> U<Option<Cond>> {
        let equal = match op {
            Token::EqualsTo => true,
            Token::NotEqualsTo => false,
            _ => return Ok(None),
        };
        let (other, unit_first) = match (x, y) {
            (other, Expr::Unit(..)) => (other, false),
            (Expr::Unit(..), other) => (other, true),
            _ => return Ok(None),
        };
        let natives = self.natives.list(name, 2).map(<[Native]>::to_vec);
        if natives.as_ref().is_some_and(|l| l.iter().any(|n| n.may_take(std::any::TypeId::of::<()>()))) {
            return Ok(None);
        }
        let op = op.clone();
        // A range (never in place: only variables and integers are) is compared by Rhai's rules.
        let general = move |rt: &mut Rt, v: Dynamic| {
            let (a, b) = if unit_first { (Dynamic::UNIT, v) } else { (v, Dynamic::UNIT) };
            truth(ops::binary(rt, &op, natives.as_deref(), a, b)?)
        };
        if let Some(v) = self.in_place(other) {
            return Ok(Some(Box::new(move |s, rt| {
                let v = v.get(s);
                if ops::is_range(v.type_id()) {
                    return general(rt, v.clone());
                }
                Ok(v.is_unit() == equal)
            })));
        }
        let other = self.expr(other)?;
        Ok(Some(Box::new(move |s, rt| {
            let v = other(s, rt)?;
            if ops::is_range(v.type_id()) {
                return general(rt, v);
            }
            let unit = v.is_unit();
            discard(v);
            Ok(unit == equal)
        })))
    }

    /// `x == "text"` (or `!=`): a variable, or properties read from one (`c.kind`,
    /// `s.board.name`), is compared where the string lies, without a copy; anything else is
    /// evaluated and compared, or handed to the operator.
    pub(super) fn equals_text_cond(
        &mut self,
        op: Token,
        natives: Option<Vec<Native>>,
        x: &Expr,
        text: ImmutableString,
    ) -> U<Cond> {
        let equal = matches!(op, Token::EqualsTo);
        if let Some(arg) = super::type_of_argument(x) {
            // `type_of(x) == "()"`: the value's kind is asked, no name made.
            let arg = self.expr(arg)?;
            let kind = super::BUILTIN_TYPES.iter().position(|t| *t == text.as_str());
            return Ok(Box::new(move |s, rt| {
                let v = arg(s, rt)?;
                let same = match super::builtin_type(&v) {
                    Some(k) => Some(k) == kind,
                    None => rt.engine.map_type_name(v.type_name()) == text.as_str(),
                };
                discard(v);
                Ok(same == equal)
            }));
        }
        let peeked = match x {
            Expr::Variable(v, ..) => self.lookup(&v.1).map(|slot| (slot, Vec::new())),
            _ if super::only_properties(x) => match self.chain(x)? {
                (Root::Slot(slot), links, _) => Some((slot, links)),
                _ => None,
            },
            _ => None,
        };
        let x = self.expr(x)?;
        Ok(Box::new(move |s, rt| {
            if let Some((slot, links)) = &peeked {
                if let Some(Some(same)) = peek_props(&s[*slot], links, |v| same_text(v, &text)) {
                    return Ok(same == equal);
                }
            }
            let a = x(s, rt)?;
            if let Some(same) = same_text(&a, &text) {
                discard(a);
                return Ok(same == equal);
            }
            truth(ops::binary(rt, &op, natives.as_deref(), a, Dynamic::from(text.clone()))?)
        }))
    }
}
