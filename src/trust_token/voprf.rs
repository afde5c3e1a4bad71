//! The VOPRF methods (BoringSSL `crypto/trust_token/voprf.cc`): `pst_v1_voprf` is RFC 9497
//! VOPRF(P-384, SHA-384) with uncompressed wire points and no finalize hash, using this crate's
//! RFC 9497 batched DLEQ; `experiment_v2_voprf` uses SHA-512 hashing and BoringSSL's older
//! `(c, u)` batched DLEQ.

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::dleq::{self, DleqProof};
use crate::group::{self, validation, Affine, Curve, Point, Scalar};
use crate::voprf::{Context, Mode};
use crate::{Error, P384Sha384, Result};

use super::hash::{token_input, ScalarHasher};
use super::keys::{PrivateKey, PublicKey};
use super::params::{voprf_params, VoprfParams};
use super::wire::encode_point;
use super::wire::TokenReader as _;
use super::{wire, Method, Pretoken, Token, C, NONCE_SIZE, POINT_LEN};

fn is_pst1(method: Method) -> bool {
    method == Method::PstV1Voprf
}

fn hash_to_group(p: &VoprfParams, t: &[u8; NONCE_SIZE]) -> Result<Point<C>> {
    C::hash_to_curve(p.xmd, &[t], &[p.h2g])
}

/// `voprf_blind`: `BT = r · H2G(t)`; keeps `r^-1`. One scalar and one field inversion per batch.
pub(crate) fn blind(
    method: Method,
    count: usize,
    msg: Option<&[u8]>,
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<Vec<Pretoken>> {
    let p = voprf_params(method);
    let mut salts = vec![[0u8; NONCE_SIZE]; count];
    // Blinds and their inverses: zeroized when dropped, also on early returns.
    let mut r: Zeroizing<Vec<Scalar<C>>> = Zeroizing::new(Vec::with_capacity(count));
    for salt in salts.iter_mut() {
        rng.fill_bytes(salt);
        r.push(group::random_scalar::<C>(rng));
    }
    let mut proj = Vec::with_capacity(count);
    for (salt, ri) in salts.iter().zip(r.iter()) {
        let t = hash_to_group(p, &token_input(salt, msg))?;
        proj.push(group::mul(&t, ri));
    }
    let mut scratch = Zeroizing::new(vec![Scalar::<C>::ZERO; count]);
    group::batch_invert::<C>(&mut r, &mut scratch)?;
    let mut aff = vec![group::affine_identity::<C>(); count];
    group::normalize_slice::<C>(&proj, &mut aff)?;
    // Published: the blinded elements `BT = r * H2G(t)` are the issue request; the blinds hide
    // the nonces `t`. The nonces and blinds stay secret (a nonce until redemption).
    validation::publish(&mut aff[..]);
    let out = salts
        .iter()
        .zip(r.iter())
        .zip(aff.iter())
        .map(|((salt, rinv), a)| Pretoken {
            salt: *salt,
            unblind: *rinv,
            blinded: *a,
        })
        .collect();
    Ok(out)
}

/// The exp2 batch weights `e_i = H2S("DLEQ BATCH\0" ‖ pub ‖ (BT_j ‖ Z_j)_j ‖ u16(i))` and the
/// aggregates `T = sum e_i BT_i`, `W = sum e_i Z_i`.
fn exp2_aggregate(
    p: &VoprfParams,
    public: &Affine<C>,
    bt: &[Affine<C>],
    z: &[Affine<C>],
) -> Result<(Point<C>, Point<C>)> {
    let mut h = ScalarHasher::new(p.xmd, p.h2s);
    h.update(b"DLEQ BATCH\0").update(&encode_point(public));
    for (b, z) in bt.iter().zip(z.iter()) {
        h.update(&encode_point(b)).update(&encode_point(z));
    }
    let mut e = Vec::with_capacity(bt.len());
    for i in 0..bt.len() {
        let i = u16::try_from(i).map_err(|_| Error::Batch)?;
        e.push(h.finish_with(&i.to_be_bytes()));
    }
    Ok((
        group::vartime_msm::<C>(bt, &e)?,
        group::vartime_msm::<C>(z, &e)?,
    ))
}

/// exp2 challenge `H2S("DLEQ\0" ‖ pub ‖ T ‖ W ‖ K0 ‖ K1)` over affine `[T, W, K0, K1]`.
fn exp2_challenge(p: &VoprfParams, public: &Affine<C>, a: &[Affine<C>; 4]) -> Scalar<C> {
    let mut h = ScalarHasher::new(p.xmd, p.h2s);
    h.update(b"DLEQ\0").update(&encode_point(public));
    for q in a {
        h.update(&encode_point(q));
    }
    h.finish_with(&[])
}

/// `voprf_sign`: `Z_i = k · BT_i`, then the batched proof. Appends
/// `Z_i... ‖ u16(96) ‖ proof` to `out`.
pub(crate) fn issue(
    key: &PrivateKey,
    points: &[u8],
    out: &mut Vec<u8>,
    rng: &mut (impl CryptoRng + ?Sized),
    proof_nonce: Option<Scalar<C>>,
) -> Result<()> {
    let n = points.len() / POINT_LEN;
    let mut bt = Vec::with_capacity(n);
    for enc in points.chunks_exact(POINT_LEN) {
        bt.push(C::decode_uncompressed(enc)?);
    }
    let k = &key.scalars()[0];
    let mut proj = vec![Point::<C>::IDENTITY; n];
    crate::par::try_fill_pieces(&mut proj, |start, piece| {
        group::mul_batch_affine(&bt[start..start + piece.len()], k, piece)
    })?;
    let mut z = vec![group::affine_identity::<C>(); n];
    group::normalize_slice::<C>(&proj, &mut z)?;
    // Published: the signed elements `Z_i = k * BT_i` are the issue response.
    validation::publish(&mut z[..]);
    for zi in &z {
        out.extend_from_slice(&encode_point(zi));
    }
    let public = &key.public_points()[0];
    // The proof nonce and `c·k`: either with the public proof gives the key. Wiped on return.
    let r = Zeroizing::new(proof_nonce.unwrap_or_else(|| group::random_scalar::<C>(rng)));
    let (c, s) = if is_pst1(key.method()) {
        let ctx = Context::<P384Sha384>::new(Mode::Voprf);
        let proof = dleq::generate_proof(&ctx, k, public, &bt, &z, &r)?;
        (proof.c, proof.s)
    } else {
        let p = voprf_params(key.method());
        let (t, _) = exp2_aggregate(p, public, &bt, &z)?;
        let w = group::mul(&t, k);
        let a = group::normalize_array(&[t, w, group::mul_generator::<C>(&r), group::mul(&t, &r)]);
        let mut c = exp2_challenge(p, public, &a);
        let ck = Zeroizing::new(c * k);
        let mut s = *r + *ck;
        // Published: the proof `(c, u)` is sent in the issue response; `u = r + c*k` is masked
        // by the one-time nonce `r`. `r`, `W` and `c*k` stay secret.
        validation::publish(&mut c);
        validation::publish(&mut s);
        (c, s)
    };
    out.extend_from_slice(&((2 * super::SCALAR_LEN) as u16).to_be_bytes());
    out.extend_from_slice(&C::scalar_bytes(&c));
    out.extend_from_slice(&C::scalar_bytes(&s));
    Ok(())
}

/// `voprf_unblind`: parses `Z_i... ‖ u16 len ‖ proof` with nothing after it, verifies the
/// batched proof and unblinds `N_i = r_i^-1 · Z_i`.
pub(crate) fn unblind(
    key: &PublicKey,
    table: &group::FixedBaseTable<C>,
    pretokens: &[Pretoken],
    r: &mut wire::Reader<'_>,
) -> Result<Vec<Token>> {
    let n = pretokens.len();
    let mut z = Vec::with_capacity(n);
    for _ in 0..n {
        z.push(r.point()?);
    }
    if usize::from(r.u16()?) != key.method().proof_len() {
        return Err(Error::InvalidLength);
    }
    let c = r.scalar()?;
    let s = r.scalar()?;
    r.finish()?;
    let bt: Vec<Affine<C>> = pretokens.iter().map(|p| p.blinded).collect();
    let public = &key.points()[0];
    if is_pst1(key.method()) {
        let ctx = Context::<P384Sha384>::new(Mode::Voprf);
        dleq::verify_proof_with_table(&ctx, table, &bt, &z, &DleqProof { c, s })?;
    } else {
        let p = voprf_params(key.method());
        let (t, w) = exp2_aggregate(p, public, &bt, &z)?;
        // K0 = u·G - c·pub, K1 = u·T - c·W.
        let k0 = group::vartime_mul_generator_and_fixed::<C>(&s, table, &-c);
        let k1 = group::vartime_lincomb::<C, 2>(&[t, w], &[s, -c]);
        let a = group::normalize_array(&[t, w, k0, k1]);
        if !bool::from(exp2_challenge(p, public, &a).ct_eq(&c)) {
            return Err(Error::InvalidProof);
        }
    }
    let mut proj = vec![Point::<C>::IDENTITY; n];
    crate::par::fill(&mut proj, |i| {
        group::mul_affine(&z[i], &pretokens[i].unblind)
    });
    let mut nn = vec![group::affine_identity::<C>(); n];
    group::normalize_slice::<C>(&proj, &mut nn)?;
    let kid = key.key_id().to_be_bytes();
    Ok(pretokens
        .iter()
        .zip(nn.iter())
        .map(|(pt, ni)| {
            let mut bytes = Vec::with_capacity(key.method().token_len());
            bytes.extend_from_slice(&kid);
            bytes.extend_from_slice(&pt.salt);
            bytes.extend_from_slice(&encode_point(ni));
            Token { bytes }
        })
        .collect())
}

/// `voprf_read`: parses `N` with nothing after it and checks `N == k · H2G(t)`.
pub(crate) fn redeem(
    key: &PrivateKey,
    t: &[u8; NONCE_SIZE],
    r: &mut wire::Reader<'_>,
) -> Result<()> {
    let n = r.point()?;
    r.finish()?;
    let tt = hash_to_group(voprf_params(key.method()), t)?;
    let expect = group::mul(&tt, &key.scalars()[0]);
    let mut valid = Point::<C>::from(n).ct_eq(&expect);
    // Published: the verdict (the redemption is accepted or refused). `expect` stays secret:
    // for a token this issuer did not sign it is the missing `N`.
    validation::publish(&mut valid);
    if bool::from(valid) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}
