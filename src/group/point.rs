//! Point arithmetic in Jacobian coordinates on the curve's own field elements.
//!
//! Both supported curves are short Weierstrass curves `y^2 = x^3 - 3x + b` of prime order, so:
//!
//! * doubling (`dbl-2001-b` scaled by 1/2, `Z3 = Y Z`, 4M + 4S) is complete: the identity
//!   (`Z = 0`) doubles to itself and no point has order two;
//! * mixed addition ([`madd_formula`], 8M + 3S, `Z3 = Z1 H`), full addition ([`add_formula`],
//!   12M + 4S, `Z3 = Z1 Z2 H`), both unscaled (as nistz256's; no doublings of `madd-2007-bl` and
//!   `add-2007-bl`), and the co-Z addition of two points with the same `Z` ([`zaddu_formula`],
//!   Meloni's ZADDU, 5M + 2S, the variable-base ladder's table only) are correct except for
//!   identity operands and for adding a point to itself. Adding `P` and `-P` yields `Z = 0`,
//!   the identity, as it should (ZADDU: `Z3 = Z (X1 - X2) = 0`).
//!
//! The `*_ct` additions handle identity operands with conditional selects and *report* the
//! doubling case as a [`Choice`] instead of handling it; the scalar multiplications accumulate
//! that flag (see [`super::mul`]). The operators (`+`, `-`) are complete and constant time: they
//! compute the doubling too and select. The `vartime_*` additions branch on every exceptional case.

use core::fmt;
use core::ops::{Add, AddAssign, Neg, Sub, SubAssign};

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::{Curve, FieldOps};

/// The base field element type of a curve.
pub(crate) type Fe<C> = <C as Curve>::Fe;

/// The doubling formula of [`JacobianPoint::double`] on any field's operations: `2 (X : Y : Z)`
/// for `a = -3`, `dbl-2001-b` scaled by `1/2` (`(X3 / 4 : Y3 / 8 : Z3 / 2)`, the same point):
/// `delta = Z^2`, `gamma = Y^2`, `beta = X gamma`, `alpha = 3 (X - delta)(X + delta) / 2`,
/// `X3 = alpha^2 - 2 beta`, `Y3 = alpha (beta - X3) - gamma^2`, `Z3 = Y Z` (4M + 4S and eight
/// additions, one of them a halving, where the unscaled form needs eleven with its `2 Y Z`, `4
/// beta`, `8 beta` and `8 gamma^2`). The oracle of the fused backend routines.
#[inline(always)]
pub(crate) fn double_formula<F: FieldOps>(x: &F, y: &F, z: &F) -> [F; 3] {
    let delta = z.square();
    let gamma = y.square();
    let beta = *x * gamma;
    let t = (*x - delta) * (*x + delta);
    let alpha = t.half() + t;
    let x3 = alpha.square() - beta.double();
    let z3 = *y * *z;
    let y3 = alpha * (beta - x3) - gamma.square();
    [x3, y3, z3]
}

/// The mixed Jacobian-affine addition `(X1 : Y1 : Z1) + (X2, Y2)` without any exceptional-case
/// handling, in the unscaled form (as nistz256's `point_add_affine`): `H = X2 Z1^2 - X1`,
/// `r = Y2 Z1^3 - Y1`, `X3 = r^2 - H^3 - 2 X1 H^2`, `Y3 = r (X1 H^2 - X3) - Y1 H^3`,
/// `Z3 = Z1 H`; 8 multiplications and 3 squarings, like `madd-2007-bl`, but without its
/// doublings and quadruplings (which only scale the result by 2). Returns `X3`, `Y3`, `Z3`,
/// `H` and `r` (both zero when the operands are equal).
#[inline(always)]
pub(crate) fn madd_formula<F: FieldOps>(x1: &F, y1: &F, z1: &F, x2: &F, y2: &F) -> [F; 5] {
    let [x3, y3, h, r] = add_common(x2, y2, z1, &z1.square(), x1, y1);
    [x3, y3, *z1 * h, h, r]
}

/// The co-Z addition `(X1 : Y1 : Z) + (X2 : Y2 : Z)` of two points with the same `Z` (Meloni's
/// `ZADDU`) without any exceptional-case handling: `C = (X1 - X2)^2`, `W1 = X1 C`, `W2 = X2 C`,
/// `A1 = Y1 (W1 - W2)`, `X3 = (Y1 - Y2)^2 - W1 - W2`, `Y3 = (Y1 - Y2)(W1 - X3) - A1`,
/// `Z3 = Z (X1 - X2)` (5 multiplications and 2 squarings). Returns `X3`, `Y3`, `Z3` and the
/// first point at `Z3`, `(W1 : A1 : Z3)`, ready for the next co-Z addition. The oracle of the
/// fused backend routines.
#[inline(always)]
pub(crate) fn zaddu_formula<F: FieldOps>(x1: &F, y1: &F, x2: &F, y2: &F, z: &F) -> [F; 5] {
    let e = *x1 - *x2;
    let c = e.square();
    let w1 = *x1 * c;
    let w2 = *x2 * c;
    let f = *y1 - *y2;
    let a1 = *y1 * (w1 - w2);
    let x3 = f.square() - w1 - w2;
    let y3 = f * (w1 - x3) - a1;
    [x3, y3, *z * e, w1, a1]
}

/// The Jacobian addition `(X1 : Y1 : Z1) + (X2 : Y2 : Z2)` without any exceptional-case
/// handling, unscaled as [`madd_formula`]: `U1 = X1 Z2^2`, `S1 = Y1 Z2^3`, `H = X2 Z1^2 - U1`,
/// `r = Y2 Z1^3 - S1`, `X3 = r^2 - H^3 - 2 U1 H^2`, `Y3 = r (U1 H^2 - X3) - S1 H^3`,
/// `Z3 = Z1 Z2 H` (12 multiplications and 4 squarings). Returns `X3`, `Y3`, `Z3`, `H`, `r`.
#[inline(always)]
pub(crate) fn add_formula<F: FieldOps>(x1: &F, y1: &F, z1: &F, x2: &F, y2: &F, z2: &F) -> [F; 5] {
    let z2z2 = z2.square();
    let u1 = *x1 * z2z2;
    let s1 = *y1 * *z2 * z2z2;
    let [x3, y3, h, r] = add_common(x2, y2, z1, &z1.square(), &u1, &s1);
    [x3, y3, *z1 * *z2 * h, h, r]
}

/// The part both additions share (the backend's `add_common!` computes the same values): the
/// second point scaled to the first's `Z`, `U2 = X2 Z1^2`, `S2 = Y2 Z1 Z1^2`; `H = U2 - U1`,
/// `r = S2 - S1`; `X3 = r^2 - H^3 - 2 U1 H^2`, `Y3 = r (U1 H^2 - X3) - S1 H^3` (the mixed
/// addition's `U1` is `X1` and its `S1` is `Y1`). Returns `X3`, `Y3`, `H`, `r`.
#[inline(always)]
fn add_common<F: FieldOps>(x2: &F, y2: &F, z1: &F, z1z1: &F, u1: &F, s1: &F) -> [F; 4] {
    let h = *x2 * *z1z1 - *u1;
    let r = *y2 * *z1 * *z1z1 - *s1;
    let hh = h.square();
    let hhh = h * hh;
    let v = *u1 * hh;
    let x3 = r.square() - hhh - v.double();
    let y3 = r * (v - x3) - *s1 * hhh;
    [x3, y3, h, r]
}

/// A point in affine coordinates `(x, y)`, or the identity (flagged; coordinates zero).
#[derive(Clone, Copy)]
pub struct AffinePoint<C: Curve> {
    pub(crate) x: Fe<C>,
    pub(crate) y: Fe<C>,
    /// 1 for the identity, 0 otherwise.
    pub(crate) infinity: u8,
}

/// A point in Jacobian coordinates `(X : Y : Z)` standing for `(X / Z^2, Y / Z^3)`; the identity
/// has `Z = 0`.
#[derive(Clone, Copy)]
pub struct JacobianPoint<C: Curve> {
    pub(crate) x: Fe<C>,
    pub(crate) y: Fe<C>,
    pub(crate) z: Fe<C>,
}

// ---------------------------------------------------------------------------------------------
// Affine

impl<C: Curve> AffinePoint<C> {
    /// The identity (coordinates zero, flag set).
    pub const IDENTITY: Self = Self {
        x: Fe::<C>::ZERO,
        y: Fe::<C>::ZERO,
        infinity: 1,
    };

    /// The generator of the group.
    pub fn generator() -> Self {
        Self {
            x: C::GEN_XY.0,
            y: C::GEN_XY.1,
            infinity: 0,
        }
    }

    /// Whether this is the identity.
    pub fn is_identity(&self) -> Choice {
        Choice::from(self.infinity)
    }

    /// Converts from the `primeorder` representation (through the SEC1 encoding; no inversion).
    pub fn from_primeorder(p: &primeorder::AffinePoint<C>) -> Self {
        C::affine_from_primeorder(p)
    }

    /// Converts to the `primeorder` representation (through the SEC1 encoding; checks the curve
    /// equation).
    pub fn to_primeorder(&self) -> primeorder::AffinePoint<C> {
        C::affine_to_primeorder(self)
    }

    /// Builds a point from coordinates of a valid point (used by the curve conversions).
    pub(crate) fn from_coordinates(x: Option<Fe<C>>, y: Option<Fe<C>>) -> Self {
        match (x, y) {
            (Some(x), Some(y)) => Self { x, y, infinity: 0 },
            // Unreachable for valid points, whose coordinates are canonical.
            _ => Self::IDENTITY,
        }
    }

    /// `x^3 - 3x + b`, the right-hand side of the curve equation.
    #[inline(always)]
    fn curve_rhs(x: &Fe<C>) -> Fe<C> {
        (x.square() + C::EQ_A) * *x + C::EQ_B
    }

    /// The point with abscissa `x` whose ordinate has the parity `y_is_odd` (SEC1 point
    /// decompression), or none when `x^3 - 3x + b` is not a square. Constant time: the square
    /// root is `rhs^((p+1)/4) = rhs * rhs^((p-3)/4)` ([`Curve::pow_c1`]; `p = 3 mod 4` on both
    /// curves), checked by squaring, and the sign is a conditional select. No point of a
    /// prime-order curve has `y = 0`, so every decompressed point keeps the requested parity.
    pub(crate) fn decompress(x: &Fe<C>, y_is_odd: Choice) -> subtle::CtOption<Self> {
        let rhs = Self::curve_rhs(x);
        let y = rhs * C::pow_c1(&rhs);
        let is_square = y.square().ct_eq(&rhs);
        let y = Fe::<C>::conditional_select(&y, &-y, y.is_odd() ^ y_is_odd);
        subtle::CtOption::new(
            Self {
                x: *x,
                y,
                infinity: 0,
            },
            is_square,
        )
    }

    /// The point `(x, y)` if it satisfies `y^2 = x^3 - 3x + b`, else none. Constant time.
    pub(crate) fn from_xy_checked(x: &Fe<C>, y: &Fe<C>) -> subtle::CtOption<Self> {
        let on_curve = y.square().ct_eq(&Self::curve_rhs(x));
        subtle::CtOption::new(
            Self {
                x: *x,
                y: *y,
                infinity: 0,
            },
            on_curve,
        )
    }

    /// Whether `(x, y)` satisfies `y^2 = x^3 - 3x + b` (identity excluded).
    #[cfg(test)]
    pub(crate) fn is_on_curve(&self) -> Choice {
        self.y.square().ct_eq(&Self::curve_rhs(&self.x)) & !self.is_identity()
    }
}

impl<C: Curve> Default for AffinePoint<C> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<C: Curve> ConditionallySelectable for AffinePoint<C> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: Fe::<C>::conditional_select(&a.x, &b.x, choice),
            y: Fe::<C>::conditional_select(&a.y, &b.y, choice),
            infinity: u8::conditional_select(&a.infinity, &b.infinity, choice),
        }
    }

    #[inline(always)]
    fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        self.x.conditional_assign(&other.x, choice);
        self.y.conditional_assign(&other.y, choice);
        self.infinity.conditional_assign(&other.infinity, choice);
    }
}

impl<C: Curve> ConstantTimeEq for AffinePoint<C> {
    fn ct_eq(&self, other: &Self) -> Choice {
        let (i1, i2) = (self.is_identity(), other.is_identity());
        (i1 & i2) | (!i1 & !i2 & self.x.ct_eq(&other.x) & self.y.ct_eq(&other.y))
    }
}

impl<C: Curve> PartialEq for AffinePoint<C> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<C: Curve> Eq for AffinePoint<C> {}

impl<C: Curve> fmt::Debug for AffinePoint<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AffinePoint")
            .field("x", &self.x)
            .field("y", &self.y)
            .field("infinity", &self.infinity)
            .finish()
    }
}

impl<C: Curve> Neg for AffinePoint<C> {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            x: self.x,
            y: Fe::<C>::conditional_select(&-self.y, &self.y, self.is_identity()),
            infinity: self.infinity,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Jacobian

impl<C: Curve> JacobianPoint<C> {
    /// The identity `(1 : 1 : 0)`.
    pub const IDENTITY: Self = Self {
        x: Fe::<C>::ONE,
        y: Fe::<C>::ONE,
        z: Fe::<C>::ZERO,
    };

    /// The generator of the group.
    pub fn generator() -> Self {
        Self::from(AffinePoint::<C>::generator())
    }

    /// The identity.
    pub fn identity() -> Self {
        Self::IDENTITY
    }

    /// Whether this is the identity.
    pub fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// Doubling, `dbl-2001-b` scaled by 1/2 (`double_formula`: 4M + 4S, `Z3 = Y Z`), complete
    /// on prime-order `a = -3` curves. The field's fused backend routine where it has one (the
    /// same formula), else the formula on the field's operations.
    #[inline]
    pub fn double(&self) -> Self {
        let [x, y, z] = match Fe::<C>::fused_double(&self.x, &self.y, &self.z) {
            Some(p) => p,
            None => double_formula(&self.x, &self.y, &self.z),
        };
        Self { x, y, z }
    }

    /// The mixed Jacobian-affine addition without any exceptional-case handling
    /// ([`madd_formula`], by the field's fused backend routine where it has one). Returns the
    /// sum and whether the formula degenerated because the operands are equal (`H = 0` and
    /// `r = 0`; meaningful only when neither operand is the identity).
    #[inline(always)]
    pub(crate) fn madd_raw(&self, q: &AffinePoint<C>) -> (Self, Choice) {
        let p = [&self.x, &self.y, &self.z];
        let [x, y, z, h, r] = match Fe::<C>::fused_madd(p, [&q.x, &q.y]) {
            Some(v) => v,
            None => madd_formula(&self.x, &self.y, &self.z, &q.x, &q.y),
        };
        (Self { x, y, z }, h.is_zero() & r.is_zero())
    }

    /// The co-Z addition ([`zaddu_formula`], by the field's fused backend routine where it has
    /// one) of `self` and a `q` with the same `Z` (a debug assertion; the formula reads `self`'s
    /// `Z` only): `self + q`, and `self` rescaled to the sum's `Z`. Without any
    /// exceptional-case handling: wrong when `self = ±q`.
    #[inline(always)]
    pub(crate) fn zaddu(&self, q: &Self) -> (Self, Self) {
        debug_assert!(
            bool::from(self.z.ct_eq(&q.z)),
            "zaddu: the operands do not share Z"
        );
        let [x, y, z, w1, a1] =
            match Fe::<C>::fused_zaddu([&self.x, &self.y], [&q.x, &q.y], &self.z) {
                Some(v) => v,
                None => zaddu_formula(&self.x, &self.y, &q.x, &q.y, &self.z),
            };
        (Self { x, y, z }, Self { x: w1, y: a1, z })
    }

    /// The Jacobian addition without any exceptional-case handling ([`add_formula`], by the
    /// field's fused backend routine where it has one); as [`Self::madd_raw`].
    #[inline(always)]
    pub(crate) fn add_raw(&self, q: &Self) -> (Self, Choice) {
        let p = [&self.x, &self.y, &self.z];
        let [x, y, z, h, r] = match Fe::<C>::fused_add(p, [&q.x, &q.y, &q.z]) {
            Some(v) => v,
            None => add_formula(&self.x, &self.y, &self.z, &q.x, &q.y, &q.z),
        };
        (Self { x, y, z }, h.is_zero() & r.is_zero())
    }

    /// `self + q` in constant time, handling identity operands by selection. The second value is
    /// set when `self == q` (both not the identity): the sum is then wrong and must be replaced
    /// by the caller.
    #[inline]
    pub(crate) fn add_affine_ct(&self, q: &AffinePoint<C>) -> (Self, Choice) {
        let (sum, same) = self.madd_raw(q);
        let p_inf = self.is_identity();
        let mut out = Self::conditional_select(&sum, &Self::from(*q), p_inf);
        out.conditional_assign(self, q.is_identity());
        (out, same & !p_inf & !q.is_identity())
    }

    /// `self + q` in constant time; as [`Self::add_affine_ct`].
    #[inline]
    pub(crate) fn add_ct(&self, q: &Self) -> (Self, Choice) {
        let (sum, same) = self.add_raw(q);
        let p_inf = self.is_identity();
        let q_inf = q.is_identity();
        let mut out = Self::conditional_select(&sum, q, p_inf);
        out.conditional_assign(self, q_inf);
        (out, same & !p_inf & !q_inf)
    }

    /// Complete constant-time addition of an affine point (also computes the doubling).
    pub fn add_affine_complete(&self, q: &AffinePoint<C>) -> Self {
        let (sum, same) = self.add_affine_ct(q);
        Self::conditional_select(&sum, &self.double(), same)
    }

    /// Complete constant-time addition (also computes the doubling).
    pub fn add_complete(&self, q: &Self) -> Self {
        let (sum, same) = self.add_ct(q);
        Self::conditional_select(&sum, &self.double(), same)
    }

    /// `self + q` in variable time (public data only).
    #[inline]
    pub fn vartime_add_affine(&self, q: &AffinePoint<C>) -> Self {
        if q.infinity != 0 {
            return *self;
        }
        if bool::from(self.is_identity()) {
            return Self::from(*q);
        }
        let (sum, same) = self.madd_raw(q);
        if bool::from(same) {
            return self.double();
        }
        sum
    }

    /// `self - q` in variable time (public data only).
    #[inline]
    pub fn vartime_sub_affine(&self, q: &AffinePoint<C>) -> Self {
        self.vartime_add_affine(&-*q)
    }

    /// `self + q` in variable time (public data only).
    #[inline]
    pub fn vartime_add(&self, q: &Self) -> Self {
        if bool::from(q.is_identity()) {
            return *self;
        }
        if bool::from(self.is_identity()) {
            return *q;
        }
        let (sum, same) = self.add_raw(q);
        if bool::from(same) {
            return self.double();
        }
        sum
    }

    /// Conversion to affine coordinates with one field inversion (constant time).
    pub fn to_affine(&self) -> AffinePoint<C> {
        let zinv = invert::<C>(&self.z);
        self.affine_with_zinv(&zinv)
    }

    /// Affine coordinates given `1/Z` (any value when `Z = 0`).
    #[inline]
    pub(crate) fn affine_with_zinv(&self, zinv: &Fe<C>) -> AffinePoint<C> {
        let zinv2 = zinv.square();
        let inf = self.is_identity();
        let p = AffinePoint {
            x: self.x * zinv2,
            y: self.y * zinv2 * zinv,
            infinity: 0,
        };
        AffinePoint::conditional_select(&p, &AffinePoint::IDENTITY, inf)
    }

    /// Converts from the `primeorder` representation (one field inversion).
    pub fn from_primeorder(p: &primeorder::ProjectivePoint<C>) -> Self {
        Self::from(AffinePoint::from_primeorder(&p.to_affine()))
    }

    /// Converts to the `primeorder` representation (one field inversion).
    pub fn to_primeorder(&self) -> primeorder::ProjectivePoint<C> {
        self.to_affine().to_primeorder().into()
    }
}

impl<C: Curve> Default for JacobianPoint<C> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<C: Curve> From<AffinePoint<C>> for JacobianPoint<C> {
    fn from(p: AffinePoint<C>) -> Self {
        let q = Self {
            x: p.x,
            y: p.y,
            z: Fe::<C>::ONE,
        };
        Self::conditional_select(&q, &Self::IDENTITY, p.is_identity())
    }
}

impl<C: Curve> From<&AffinePoint<C>> for JacobianPoint<C> {
    fn from(p: &AffinePoint<C>) -> Self {
        Self::from(*p)
    }
}

impl<C: Curve> ConditionallySelectable for JacobianPoint<C> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: Fe::<C>::conditional_select(&a.x, &b.x, choice),
            y: Fe::<C>::conditional_select(&a.y, &b.y, choice),
            z: Fe::<C>::conditional_select(&a.z, &b.z, choice),
        }
    }

    #[inline(always)]
    fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        self.x.conditional_assign(&other.x, choice);
        self.y.conditional_assign(&other.y, choice);
        self.z.conditional_assign(&other.z, choice);
    }
}

impl<C: Curve> ConstantTimeEq for JacobianPoint<C> {
    fn ct_eq(&self, other: &Self) -> Choice {
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let xs = (self.x * z2z2).ct_eq(&(other.x * z1z1));
        let ys = (self.y * z2z2 * other.z).ct_eq(&(other.y * z1z1 * self.z));
        let i1 = self.is_identity();
        let i2 = other.is_identity();
        (i1 & i2) | (!i1 & !i2 & xs & ys)
    }
}

impl<C: Curve> PartialEq for JacobianPoint<C> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<C: Curve> Eq for JacobianPoint<C> {}

impl<C: Curve> fmt::Debug for JacobianPoint<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JacobianPoint")
            .field("x", &self.x)
            .field("y", &self.y)
            .field("z", &self.z)
            .finish()
    }
}

impl<C: Curve> Neg for JacobianPoint<C> {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            x: self.x,
            y: -self.y,
            z: self.z,
        }
    }
}

impl<C: Curve> Neg for &JacobianPoint<C> {
    type Output = JacobianPoint<C>;
    fn neg(self) -> JacobianPoint<C> {
        -*self
    }
}

macro_rules! impl_ops {
    ($rhs:ty, $add:ident, $conv:expr) => {
        impl<C: Curve> Add<$rhs> for JacobianPoint<C> {
            type Output = JacobianPoint<C>;
            fn add(self, q: $rhs) -> JacobianPoint<C> {
                #[allow(clippy::redundant_closure_call)]
                self.$add(&($conv)(q))
            }
        }
        impl<C: Curve> Add<$rhs> for &JacobianPoint<C> {
            type Output = JacobianPoint<C>;
            fn add(self, q: $rhs) -> JacobianPoint<C> {
                #[allow(clippy::redundant_closure_call)]
                self.$add(&($conv)(q))
            }
        }
        impl<C: Curve> Sub<$rhs> for JacobianPoint<C> {
            type Output = JacobianPoint<C>;
            fn sub(self, q: $rhs) -> JacobianPoint<C> {
                #[allow(clippy::redundant_closure_call)]
                self.$add(&-($conv)(q))
            }
        }
        impl<C: Curve> Sub<$rhs> for &JacobianPoint<C> {
            type Output = JacobianPoint<C>;
            fn sub(self, q: $rhs) -> JacobianPoint<C> {
                #[allow(clippy::redundant_closure_call)]
                self.$add(&-($conv)(q))
            }
        }
        impl<C: Curve> AddAssign<$rhs> for JacobianPoint<C> {
            fn add_assign(&mut self, q: $rhs) {
                *self = *self + q;
            }
        }
        impl<C: Curve> SubAssign<$rhs> for JacobianPoint<C> {
            fn sub_assign(&mut self, q: $rhs) {
                *self = *self - q;
            }
        }
    };
}

impl_ops!(AffinePoint<C>, add_affine_complete, |q: AffinePoint<C>| q);
impl_ops!(&AffinePoint<C>, add_affine_complete, |q: &AffinePoint<
    C,
>| *q);
impl_ops!(JacobianPoint<C>, add_complete, |q: JacobianPoint<C>| q);
impl_ops!(&JacobianPoint<C>, add_complete, |q: &JacobianPoint<C>| *q);

impl<C: Curve> core::iter::Sum for JacobianPoint<C> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::IDENTITY, |a, b| a + b)
    }
}

// ---------------------------------------------------------------------------------------------
// Batched affine conversion

/// Converts `points` to affine coordinates into `out` with one field inversion (Montgomery's
/// trick), constant time. Identity points (`Z = 0`) are handled by selection. `out` doubles as
/// the scratch space for the prefix products. The inversion is counted (feature `inversion-counter`).
///
/// Both slices must have the same length (only the common prefix is converted).
pub(crate) fn batch_normalize<C: Curve>(points: &[JacobianPoint<C>], out: &mut [AffinePoint<C>]) {
    let n = points.len().min(out.len());
    if n == 0 {
        return;
    }
    // Prefix products of the Z coordinates, with zeros replaced by one, in out[i].x.
    let mut acc = Fe::<C>::ONE;
    for (p, o) in points.iter().zip(out.iter_mut()) {
        o.x = acc;
        let z = Fe::<C>::conditional_select(&p.z, &Fe::<C>::ONE, p.is_identity());
        acc *= z;
    }
    // acc is a product of non-zero values, hence invertible.
    let mut inv = invert::<C>(&acc);
    for (p, o) in points[..n].iter().zip(out[..n].iter_mut()).rev() {
        let z = Fe::<C>::conditional_select(&p.z, &Fe::<C>::ONE, p.is_identity());
        let zinv = inv * o.x;
        inv *= z;
        *o = p.affine_with_zinv(&zinv);
    }
}

/// Field inversion (zero maps to zero), counted by the inversion counter. Constant time.
pub(crate) fn invert<C: Curve>(a: &Fe<C>) -> Fe<C> {
    super::count_inversion();
    C::invert_field(a)
}
