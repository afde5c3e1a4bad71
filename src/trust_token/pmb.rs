//! PMBTokens with the private metadata bit (BoringSSL `crypto/trust_token/pmbtoken.cc`;
//! eprint 2020/072 App. H, construction 6) for `pst_v1_pmb` and `experiment_v2_pmb`.

use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::dleqor::{self, Statement};
use crate::group::{
    self, validation, Affine, Curve, FixedBaseTable, LadderBlind, Point, Scalar, Xmd,
};
use crate::{Error, Result};

use super::hash::{token_input, ScalarHasher};
use super::keys::{PrivateKey, PublicKey};
use super::params::{h_table, pmb_params, PmbParams};
use super::wire::TokenReader as _;
use super::wire::{decode_wire_point, encode_point, put_point};
use super::{wire, Method, Pretoken, Token, C, NONCE_SIZE};

/// Fixed-base tables of a PMB public key `pub0, pub1, pubs` (as BoringSSL's
/// `pub{0,1,s}_precomp`), built when an issuer or client adds the key.
#[derive(Clone, Debug)]
pub(crate) struct KeyTables(pub(crate) [FixedBaseTable<C>; 3]);

impl KeyTables {
    /// The tables of a PMB key; `None` for VOPRF keys.
    pub(crate) fn for_key(key: &PublicKey) -> Option<Self> {
        if !key.method().has_private_metadata() {
            return None;
        }
        let p = key.points();
        Some(Self(core::array::from_fn(|i| FixedBaseTable::new(&p[i]))))
    }
}

/// What a PMB issuer keeps per key besides the private key: the fixed-base tables of the public
/// points (for the DLEQOR2 proof) and the secret blind of its multi-point ladders.
///
/// The blind is `ρ·G` with `ρ` a PRF of the private key (hash-to-scalar of the six scalars under
/// its own DST): it never leaves the issuer, and without it nobody can choose points (a
/// redemption's `S`) that make a ladder addition exceptional (see `group/ct_multi.rs`).
#[derive(Clone, Debug)]
pub(crate) struct IssuerKey {
    pub(crate) tables: KeyTables,
    pub(crate) blind: LadderBlind<C>,
}

/// The DST of the issuer's ladder blind (`ρ = H(x0 ‖ y0 ‖ x1 ‖ y1 ‖ xs ‖ ys)`).
const BLIND_DST: &[u8] = b"privacy-tokens PMB issuer ladder blind v1";

impl IssuerKey {
    /// `None` for VOPRF keys.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] if hashing the key fails (it cannot with this DST) or gives the
    /// zero blind (probability 2^-384).
    pub(crate) fn for_key(key: &PrivateKey) -> Result<Option<Self>> {
        let Some(tables) = KeyTables::for_key(&key.public_key()) else {
            return Ok(None);
        };
        let k = key.scalars();
        let bytes: [Zeroizing<<C as Curve>::ScalarBytes>; 6] =
            core::array::from_fn(|i| Zeroizing::new(C::scalar_bytes(&k[i])));
        let pieces: [&[u8]; 6] = core::array::from_fn(|i| bytes[i].as_ref());
        let mut rho = C::hash_to_scalar(Xmd::Sha384, &pieces, &[BLIND_DST])?;
        let blind = LadderBlind::from_secret(&rho);
        zeroize::Zeroize::zeroize(&mut rho);
        // A zero ρ has probability 2^-384; refuse it rather than run unblinded ladders.
        let blind = blind.ok_or(Error::HashToCurve)?;
        Ok(Some(Self { tables, blind }))
    }
}

fn hash_t(p: &PmbParams, t: &[u8; NONCE_SIZE]) -> Result<Point<C>> {
    C::hash_to_curve(p.xmd, &[t], &[p.hash_t])
}

fn hash_s(p: &PmbParams, t_prime: &[u8], s: &[u8; NONCE_SIZE]) -> Result<Point<C>> {
    C::hash_to_curve(p.xmd, &[t_prime, s], &[p.hash_s])
}

/// `AT.Usr0` (`pmbtoken_blind`): `T' = r^-1 · Ht(t)`; keeps `r`. One scalar inversion and one
/// field inversion per batch.
pub(crate) fn blind(
    method: Method,
    count: usize,
    msg: Option<&[u8]>,
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<Vec<Pretoken>> {
    let p = pmb_params(method);
    let mut salts = vec![[0u8; NONCE_SIZE]; count];
    // Blinds and their inverses: zeroized when dropped, also on early returns.
    let mut r: Zeroizing<Vec<Scalar<C>>> = Zeroizing::new(Vec::with_capacity(count));
    for salt in salts.iter_mut() {
        rng.fill_bytes(salt);
        r.push(group::random_scalar::<C>(rng));
    }
    let mut rinv = r.clone();
    let mut scratch = Zeroizing::new(vec![Scalar::<C>::ZERO; count]);
    group::batch_invert::<C>(&mut rinv, &mut scratch)?;
    let mut proj = Vec::with_capacity(count);
    for (salt, ri) in salts.iter().zip(rinv.iter()) {
        let t = hash_t(p, &token_input(salt, msg))?;
        proj.push(group::mul(&t, ri));
    }
    let mut aff = vec![group::affine_identity::<C>(); count];
    group::normalize_slice::<C>(&proj, &mut aff)?;
    // Published: `T' = r^-1 * Ht(t)` are the issue request; the blinds hide the nonces `t`.
    // The nonces and blinds stay secret (a nonce until redemption).
    validation::publish(&mut aff[..]);
    Ok(salts
        .iter()
        .zip(r.iter())
        .zip(aff.iter())
        .map(|((salt, r), a)| Pretoken {
            salt: *salt,
            unblind: *r,
            blinded: *a,
        })
        .collect())
}

/// The batch weights `e_i = Hc("DLEQ BATCH\0" ‖ pubs ‖ pub0 ‖ pub1 ‖ (T'_j ‖ S'_j ‖ W'_j ‖ Ws'_j)_j ‖ u16(i))`
/// and the aggregates `T, S, W, Ws` (variable time: all public).
///
/// With `keys = Some([[xb, yb], [xs, ys]])` (the issuer, batches of [`KEYED_AGGREGATE_MIN`] or
/// more) `W = xb·T + yb·S` and `Ws = xs·T + ys·S` replace two multi-scalar multiplications
/// over the batch by two constant-time two-term multiplications sharing their tables: the same
/// points, since `W'_i = xb·T'_i + yb·S'_i` and `Ws'_i = xs·T'_i + ys·S'_i`.
fn aggregate(
    p: &PmbParams,
    pubs: &[Affine<C>; 3],
    t: &[Affine<C>],
    s: &[Affine<C>],
    w: &[Affine<C>],
    ws: &[Affine<C>],
    keys: Option<(&PairKeys, &LadderBlind<C>)>,
) -> Result<[Point<C>; 4]> {
    let mut h = ScalarHasher::new(p.xmd, p.hash_c);
    h.update(b"DLEQ BATCH\0")
        .update(&encode_point(&pubs[2]))
        .update(&encode_point(&pubs[0]))
        .update(&encode_point(&pubs[1]));
    for i in 0..t.len() {
        h.update(&encode_point(&t[i]))
            .update(&encode_point(&s[i]))
            .update(&encode_point(&w[i]))
            .update(&encode_point(&ws[i]));
    }
    let mut e = Vec::with_capacity(t.len());
    for i in 0..t.len() {
        let i = u16::try_from(i).map_err(|_| Error::Batch)?;
        e.push(h.finish_with(&i.to_be_bytes()));
    }
    let tt = group::vartime_msm::<C>(t, &e)?;
    let ss = group::vartime_msm::<C>(s, &e)?;
    Ok(match keys {
        Some((keys, blind)) if t.len() >= KEYED_AGGREGATE_MIN => {
            let [ww, wws] = group::mul_multi_shared_ct::<C, 2, 2>(&[tt, ss], keys, blind);
            [tt, ss, ww, wws]
        }
        _ => [
            tt,
            ss,
            group::vartime_msm::<C>(w, &e)?,
            group::vartime_msm::<C>(ws, &e)?,
        ],
    })
}

/// The issuer's `[[xb, yb], [xs, ys]]`: the bit's key pair and the validity key pair.
type PairKeys = [[Scalar<C>; 2]; 2];

/// From this batch size on, the issuer derives `W` and `Ws` from `T` and `S` with its keys
/// (cheaper than two more multi-scalar multiplications over the batch).
const KEYED_AGGREGATE_MIN: usize = 3;

/// `AT.Sig` (`pmbtoken_sign`): for each `T'`, `s` random, `S' = Hs(T', s)`,
/// `W' = xb·T' + yb·S'`, `Ws' = xs·T' + ys·S'`; then the batched DLEQ2 + DLEQOR2 proof.
/// Appends `(s ‖ W' ‖ Ws')_i ‖ u16(432) ‖ proof` to `out`. The bit only drives selections.
pub(crate) fn issue(
    key: &PrivateKey,
    state: &IssuerKey,
    points: &[u8],
    bit: bool,
    out: &mut Vec<u8>,
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<()> {
    let p = pmb_params(key.method());
    let plen = key.method().point_len();
    let n = points.len() / plen;
    let mut tp = Vec::with_capacity(n);
    for enc in points.chunks_exact(plen) {
        tp.push(decode_wire_point(key.method(), enc)?);
    }
    let k = key.scalars();
    let bit = Choice::from(u8::from(bit));
    // The keys of the bit's pair and of the validity pair, `[[xb, yb], [xs, ys]]`: the only
    // copies of the key scalars here, wiped on return.
    let keys = Zeroizing::new([
        [
            Scalar::<C>::conditional_select(&k[0], &k[2], bit),
            Scalar::<C>::conditional_select(&k[1], &k[3], bit),
        ],
        [k[4], k[5]],
    ]);
    let mut salts = vec![[0u8; NONCE_SIZE]; n];
    // proj = [S'_0..S'_n, W'_0..W'_n, Ws'_0..Ws'_n], normalized with one inversion.
    let mut proj = vec![Point::<C>::IDENTITY; 3 * n];
    for salt in salts.iter_mut() {
        rng.fill_bytes(salt);
    }
    // Published: the issuer's salts `s` go in the clear into the response (`S' = Hs(T', s)` is
    // recomputed by the client); they are not a key, a nonce of a proof or the bit.
    validation::publish(&mut salts[..]);
    crate::par::try_fill(&mut proj[..n], |i| {
        hash_s(p, &encode_point(&tp[i]), &salts[i])
    })?;
    let ts: Vec<[Point<C>; 2]> = tp
        .iter()
        .zip(&proj[..n])
        .map(|(t, s)| [Point::<C>::from(*t), *s])
        .collect();
    // W' = xb T' + yb S' and Ws' = xs T' + ys S' for every token: the window tables of T' and
    // S' are shared by both products and normalised together for the whole batch (for each
    // piece of it when the batch is split over cores).
    let wws = crate::par::map_pieces(&ts, |piece| {
        group::mul_multi_shared_batch_ct::<C, 2, 2>(piece, &keys, &state.blind)
    });
    for (i, [w, ws]) in wws.iter().enumerate() {
        proj[n + i] = *w;
        proj[2 * n + i] = *ws;
    }
    let mut aff = vec![group::affine_identity::<C>(); 3 * n];
    group::normalize_slice::<C>(&proj, &mut aff)?;
    // Published: `W'` and `Ws'` are the signed elements of the response. Which of the bit's
    // two key pairs made `W'` is hidden by the DDH assumption (eprint 2020/072, App. H), so
    // the bit does not follow from them. `S' = Hs(T', s)` is public too (the client recomputes
    // it), but shares their field inversion, so memcheck sees it as derived from them.
    validation::publish(&mut aff[..]);
    let (s_aff, rest) = aff.split_at(n);
    let (w_aff, ws_aff) = rest.split_at(n);
    for i in 0..n {
        out.extend_from_slice(&salts[i]);
        put_point(out, key.method(), &w_aff[i]);
        put_point(out, key.method(), &ws_aff[i]);
    }
    let pubs = key.public_points();
    let tsw = aggregate(
        p,
        pubs,
        &tp,
        s_aff,
        w_aff,
        ws_aff,
        Some((&keys, &state.blind)),
    )?;
    let hc = ScalarHasher::new(p.xmd, p.hash_c);
    let st = Statement {
        h: h_table(key.method()),
        pub_tables: &state.tables.0,
        pubs,
        tsw,
        hc: &hc,
    };
    let proof = dleqor::prove(&st, k, bit, &state.blind, rng);
    out.extend_from_slice(&((9 * super::SCALAR_LEN) as u16).to_be_bytes());
    for s in &proof.0 {
        out.extend_from_slice(&C::scalar_bytes(s));
    }
    Ok(())
}

/// `AT.Usr1` (`pmbtoken_unblind`): parses `(s ‖ W' ‖ Ws')_i ‖ u16 len ‖ proof` with nothing
/// after it, verifies the batched proof, and unblinds `(S, W, Ws) = r·(S', W', Ws')`.
pub(crate) fn unblind(
    key: &PublicKey,
    tables: &KeyTables,
    pretokens: &[Pretoken],
    r: &mut wire::Reader<'_>,
) -> Result<Vec<Token>> {
    let p = pmb_params(key.method());
    let n = pretokens.len();
    let mut salts = Vec::with_capacity(n);
    // received = [W'_0..W'_n, Ws'_0..Ws'_n]
    let mut received = vec![group::affine_identity::<C>(); 2 * n];
    for i in 0..n {
        salts.push(r.array::<NONCE_SIZE>()?);
        received[i] = r.wire_point(key.method())?;
        received[n + i] = r.wire_point(key.method())?;
    }
    if usize::from(r.u16()?) != key.method().proof_len() {
        return Err(Error::InvalidLength);
    }
    let mut proof = [Scalar::<C>::ZERO; 9];
    for s in proof.iter_mut() {
        *s = r.scalar()?;
    }
    r.finish()?;

    let mut proj = vec![Point::<C>::IDENTITY; n];
    crate::par::try_fill(&mut proj, |i| {
        hash_s(p, &encode_point(&pretokens[i].blinded), &salts[i])
    })?;
    let tp: Vec<Affine<C>> = pretokens.iter().map(|pt| pt.blinded).collect();
    let mut s_aff = vec![group::affine_identity::<C>(); n];
    group::normalize_slice::<C>(&proj, &mut s_aff)?;
    let pubs = key.points();
    let (w_aff, ws_aff) = received.split_at(n);
    let tsw = aggregate(p, pubs, &tp, &s_aff, w_aff, ws_aff, None)?;
    let hc = ScalarHasher::new(p.xmd, p.hash_c);
    let st = Statement {
        h: h_table(key.method()),
        pub_tables: &tables.0,
        pubs,
        tsw,
        hc: &hc,
    };
    dleqor::verify(&st, &dleqor::Proof(proof))?;

    // Unblind: [S_0..S_n, W_0..W_n, Ws_0..Ws_n], one inversion.
    let mut proj = vec![Point::<C>::IDENTITY; 3 * n];
    crate::par::fill(&mut proj, |j| {
        let (part, i) = (j / n, j % n);
        let q = [&s_aff, w_aff, ws_aff][part];
        group::mul_affine(&q[i], &pretokens[i].unblind)
    });
    let mut aff = vec![group::affine_identity::<C>(); 3 * n];
    group::normalize_slice::<C>(&proj, &mut aff)?;
    let kid = key.key_id().to_be_bytes();
    let mut tokens = Vec::with_capacity(n);
    for (i, pt) in pretokens.iter().enumerate() {
        let mut bytes = Vec::with_capacity(key.method().token_len());
        bytes.extend_from_slice(&kid);
        bytes.extend_from_slice(&pt.salt);
        put_point(&mut bytes, key.method(), &aff[i]);
        put_point(&mut bytes, key.method(), &aff[n + i]);
        put_point(&mut bytes, key.method(), &aff[2 * n + i]);
        tokens.push(Token { bytes });
    }
    Ok(tokens)
}

/// `AT.VerValid` + `AT.ReadBit` (`pmbtoken_read`): parses `S ‖ W ‖ Ws` with nothing after it,
/// checks `Ws = xs·T + ys·S` and that exactly one of `W = x0·T + y0·S`, `W = x1·T + y1·S`
/// holds, with `T = Ht(t)`. Returns the bit.
pub(crate) fn redeem(
    key: &PrivateKey,
    state: &IssuerKey,
    t: &[u8; NONCE_SIZE],
    r: &mut wire::Reader<'_>,
) -> Result<bool> {
    let p = pmb_params(key.method());
    let s = r.wire_point(key.method())?;
    let w = r.wire_point(key.method())?;
    let ws = r.wire_point(key.method())?;
    r.finish()?;
    let tt = hash_t(p, t)?;
    let sp = Point::<C>::from(s);
    let k = key.scalars();
    // Three products over the same two points: shared (affine) window tables.
    let keys = Zeroizing::new([[k[4], k[5]], [k[0], k[1]], [k[2], k[3]]]);
    let [ws_c, w0, w1] = group::mul_multi_shared_ct::<C, 2, 3>(&[tt, sp], &keys, &state.blind);
    let w = Point::<C>::from(w);
    let ok_s = Point::<C>::from(ws).ct_eq(&ws_c);
    let is0 = w.ct_eq(&w0);
    let is1 = w.ct_eq(&w1);
    let mut valid = ok_s & (is0 ^ is1);
    // Published: the verdict (accepted or refused), which is the same for both bits. `is1`,
    // the bit read, and the expected points stay secret.
    validation::publish(&mut valid);
    if bool::from(valid) {
        Ok(bool::from(is1))
    } else {
        Err(Error::InvalidProof)
    }
}
