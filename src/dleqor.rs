//! The batched PMBTokens proofs (eprint 2020/072, App. B and H; BoringSSL
//! `crypto/trust_token/pmbtoken.cc` `dleq_generate` / `dleq_verify`):
//!
//! * DLEQ2 (validity): `pubs = xs·G + ys·H` and `Ws = xs·T + ys·S`;
//! * DLEQOR2 (private metadata bit): `pub_b = xb·G + yb·H` and `W = xb·T + yb·S` for `b = 0`
//!   or `b = 1`, without saying which.
//!
//! Both run on the aggregates `T, S, W, Ws` of a batch. The prover is constant time over the
//! key scalars, the nonces and the bit (both OR branches run the same operations; the real
//! one is selected with `subtle`). The verifier is variable time over public data. Each side
//! converts its ten points to affine coordinates with one field inversion.

use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::group::{self, validation, Affine, Curve, FixedBaseTable, Point, Scalar};
use crate::trust_token::hash::ScalarHasher;
use crate::{Error, Result};

type C = crate::group::NistP384;

/// The public statement: generators, public keys and the batch aggregates.
pub(crate) struct Statement<'a> {
    /// The table of the second generator `H`.
    pub(crate) h: &'a FixedBaseTable<C>,
    /// The tables of `pub0, pub1, pubs`.
    pub(crate) pub_tables: &'a [FixedBaseTable<C>; 3],
    /// `pub0, pub1, pubs`.
    pub(crate) pubs: &'a [Affine<C>; 3],
    /// `T, S, W, Ws` (Jacobian).
    pub(crate) tsw: [Point<C>; 4],
    /// The challenge hash (`Hc`: the method's `HashC` DST).
    pub(crate) hc: &'a ScalarHasher,
}

/// The proof `cs, us, vs, c0, c1, u0, u1, v0, v1` (9 × 48 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Proof(pub(crate) [Scalar<C>; 9]);

fn unc(p: &Affine<C>) -> <C as Curve>::Uncompressed {
    C::encode_uncompressed(p)
}

/// `Hc("DLEQ2\0" ‖ pubs ‖ T ‖ S ‖ Ws ‖ Ks0 ‖ Ks1)` and
/// `Hc("DLEQOR2\0" ‖ pub0 ‖ pub1 ‖ T ‖ S ‖ W ‖ K00 ‖ K01 ‖ K10 ‖ K11)` over the affine points
/// `[T, S, W, Ws, Ks0, Ks1, K00, K01, K10, K11]`.
fn challenges(st: &Statement<'_>, a: &[Affine<C>; 10]) -> (Scalar<C>, Scalar<C>) {
    let mut h = st.hc.clone();
    h.update(b"DLEQ2\0").update(&unc(&st.pubs[2]));
    for i in [0, 1, 3, 4, 5] {
        h.update(&unc(&a[i]));
    }
    let cs = h.finish_with(&[]);
    let mut h = st.hc.clone();
    h.update(b"DLEQOR2\0")
        .update(&unc(&st.pubs[0]))
        .update(&unc(&st.pubs[1]));
    for p in &a[..3] {
        h.update(&unc(p));
    }
    for p in &a[6..] {
        h.update(&unc(p));
    }
    (cs, h.finish_with(&[]))
}

/// Proves the statement for the key `[x0, y0, x1, y1, xs, ys]` and the bit `bit`.
pub(crate) fn prove(
    st: &Statement<'_>,
    key: &[Scalar<C>; 6],
    bit: Choice,
    blind: &group::LadderBlind<C>,
    rng: &mut (impl CryptoRng + ?Sized),
) -> Proof {
    let [t, s, w, _ws] = st.tsw;
    // The nonces, in draw order: DLEQ2 (ks0, ks1); DLEQOR2's real branch (k0, k1) and simulated
    // one (co, uo, vo). Wiped on return, with every secret intermediate below.
    let nonces: Zeroizing<[Scalar<C>; 7]> =
        Zeroizing::new(core::array::from_fn(|_| group::random_scalar::<C>(rng)));
    let [ks0, ks1, k0, k1, co, uo, vo] = &*nonces;
    // DLEQ2.
    let big_ks0 = group::mul_generator::<C>(ks0) + group::mul_fixed_ct([st.h], &[*ks1]);
    // DLEQOR2: the real branch uses (k0, k1, c = 0), the simulated one (uo, vo, co); both
    // compute K_j0 = u·G + v·H - c·pub_j and K_j1 = u·T + v·S - c·W.
    let mut ks = [Point::<C>::IDENTITY; 4];
    let mut tsw_scalars = Zeroizing::new([[*ks0, *ks1, Scalar::<C>::ZERO]; 3]);
    for j in 0..2u8 {
        let real = Choice::from((bit.unwrap_u8() ^ j ^ 1) & 1);
        // `[u, v, c]`: copies of the real branch's nonces (or the simulated values), wiped
        // each round.
        let uvc = Zeroizing::new([
            Scalar::<C>::conditional_select(uo, k0, real),
            Scalar::<C>::conditional_select(vo, k1, real),
            Scalar::<C>::conditional_select(&-*co, &Scalar::<C>::ZERO, real),
        ]);
        let [u, vc @ ..] = &*uvc;
        let pj = &st.pub_tables[usize::from(j)];
        ks[2 * usize::from(j)] = group::mul_generator::<C>(u) + group::mul_fixed_ct([st.h, pj], vc);
        tsw_scalars[1 + usize::from(j)] = *uvc;
    }
    // K_s1, K_01 and K_11 are products over the same points T, S, W: shared window tables.
    let [big_ks1, k01, k11] =
        group::mul_multi_shared_ct::<C, 3, 3>(&[t, s, w], &tsw_scalars, blind);
    ks[1] = k01;
    ks[3] = k11;
    let a = group::normalize_array(&[
        st.tsw[0], st.tsw[1], st.tsw[2], st.tsw[3], big_ks0, big_ks1, ks[0], ks[1], ks[2], ks[3],
    ]);
    let (cs, c) = challenges(st, &a);
    let us = ks0 + &*Zeroizing::new(cs * key[4]);
    let vs = ks1 + &*Zeroizing::new(cs * key[5]);
    let xb = Zeroizing::new(Scalar::<C>::conditional_select(&key[0], &key[2], bit));
    let yb = Zeroizing::new(Scalar::<C>::conditional_select(&key[1], &key[3], bit));
    let cb = c - co;
    let ub = Zeroizing::new(*k0 + cb * *xb);
    let vb = Zeroizing::new(*k1 + cb * *yb);
    // Index b holds the real branch, index 1-b the simulated one.
    let sel = |real: &Scalar<C>, sim: &Scalar<C>| {
        (
            Scalar::<C>::conditional_select(real, sim, bit),
            Scalar::<C>::conditional_select(sim, real, bit),
        )
    };
    let (c0, c1) = sel(&cb, co);
    let (u0, u1) = sel(&ub, uo);
    let (v0, v1) = sel(&vb, vo);
    let mut proof = [cs, us, vs, c0, c1, u0, u1, v0, v1];
    // Published: the nine scalars are the issuer's proof, sent in the issue response. The
    // challenges are hash outputs (`c0 + c1 = c`), each response is masked by its one-time
    // nonce, and the OR proof is witness indistinguishable: the split of `c` and the responses
    // of the two branches say nothing about the bit. The nonces, `xb`, `yb` and the bit stay
    // secret.
    validation::publish(&mut proof);
    Proof(proof)
}

/// Verifies the proof. Variable time (public data only).
///
/// # Errors
/// [`Error::InvalidProof`] when either proof fails.
pub(crate) fn verify(st: &Statement<'_>, proof: &Proof) -> Result<()> {
    let [cs, us, vs, c0, c1, u0, u1, v0, v1] = proof.0;
    let [t, s, w, ws] = st.tsw;
    // u·G + v·H - c·pub_i over the fixed-base tables.
    let fixed = |u: &Scalar<C>, v: &Scalar<C>, c: &Scalar<C>, i: usize| {
        C::generator_table()
            .vartime_mul(u)
            .vartime_add(&group::vartime_mul_fixed(
                [st.h, &st.pub_tables[i]],
                &[*v, -*c],
            ))
    };
    let big_ks0 = fixed(&us, &vs, &cs, 2);
    let big_ks1 = group::vartime_lincomb::<C, 3>(&[t, s, ws], &[us, vs, -cs]);
    let k00 = fixed(&u0, &v0, &c0, 0);
    let k01 = group::vartime_lincomb::<C, 3>(&[t, s, w], &[u0, v0, -c0]);
    let k10 = fixed(&u1, &v1, &c1, 1);
    let k11 = group::vartime_lincomb::<C, 3>(&[t, s, w], &[u1, v1, -c1]);
    let a = group::normalize_array(&[t, s, w, ws, big_ks0, big_ks1, k00, k01, k10, k11]);
    let (cs2, c) = challenges(st, &a);
    if bool::from(cs2.ct_eq(&cs) & c.ct_eq(&(c0 + c1))) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}
