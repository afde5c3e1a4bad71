//! The proof layer of ACT (ACT §4.4): tags and session ids, derived prover nonces, and the
//! three relations (`Commitment`, `Signature`, `Spend`) compiled exactly as the draft's PoC
//! compiles them (element and scalar order, image and term signs), on the crate's sigma-03
//! engine ([`LinearRelation`]).

use zeroize::Zeroizing;

use super::{derive_nonces, Compressed, Generators, Scalar, C, CTX, SEED_LEN};
use crate::arc::sigma03::{
    derive_session_id_pieces, LinearEquation, LinearRelation, Opening, P256_CIPHERSUITE,
};
use crate::group::{Affine, FixedBaseTable};
use crate::transcript::len_prefix;
use crate::{Error, Result};

/// `DeriveSessionID(Tag(label, bindings))` with `Tag(label, bindings) = ctx_proto || "-" ||
/// label || "-CMPT-with-" || "sigma-proofs_Shake128_P256" || U16Prefixed(b)*` (ACT §4.4.1).
pub(crate) fn session_id(label: &[u8], bindings: &[&[u8]]) -> Result<[u8; 32]> {
    let prefixes = bindings
        .iter()
        .map(|b| len_prefix(b.len()))
        .collect::<Result<Vec<_>>>()?;
    let mut pieces: Vec<&[u8]> = vec![
        CTX,
        b"-",
        label,
        b"-CMPT-with-",
        P256_CIPHERSUITE.as_bytes(),
    ];
    for (p, b) in prefixes.iter().zip(bindings) {
        pieces.push(p);
        pieces.push(b);
    }
    Ok(derive_session_id_pieces(&pieces))
}

pub(crate) const ISSUE_REQUEST: &[u8] = b"IssueRequest";
pub(crate) const ISSUE_RESPONSE: &[u8] = b"IssueResponse";
pub(crate) const REFUND: &[u8] = b"Refund";
pub(crate) const SPEND: &[u8] = b"Spend";

/// `Prove` (ACT §4.4.3): nonces `DeriveNonces(SerializeScalar(w_0) || .., "nonce",
/// session_id || I2OSP(len(inst), 4) || inst, rand, Nw)` (ACT §4.4.2), then the compact NARG
/// (with `openings` of elements over tabled ones, see
/// [`LinearRelation::prove_compact_opened`]; all `None` for none).
pub(crate) fn prove(
    session_id: &[u8; 32],
    relation: &LinearRelation<C>,
    witness: &[Scalar],
    rand: &[u8; SEED_LEN],
    tables: &[Option<&FixedBaseTable<C>>],
    openings: &[Option<Opening<'_, C>>],
) -> Result<Vec<u8>> {
    let instance = relation.serialize();
    let mut secret = Zeroizing::new(Vec::with_capacity(witness.len() * 32));
    for w in witness {
        secret.extend_from_slice(&super::encode_scalar(w));
    }
    let len = u32::try_from(instance.len())
        .map_err(|_| Error::InputTooLong)?
        .to_be_bytes();
    let nonces = derive_nonces(
        &secret,
        b"nonce",
        &[session_id, &len, &instance],
        rand,
        witness.len(),
    )?;
    if openings.iter().all(Option::is_none) {
        relation.prove_compact(session_id, &instance, witness, &nonces, tables)
    } else {
        relation.prove_compact_opened(session_id, &instance, witness, &nonces, tables, openings)
    }
}

/// `Verify`: the compact NARG on the instance (validated); `tables` as for [`prove`].
pub(crate) fn verify(
    session_id: &[u8; 32],
    relation: &LinearRelation<C>,
    proof: &[u8],
    tables: &[Option<&FixedBaseTable<C>>],
) -> Result<()> {
    let instance = relation.serialize();
    relation.vartime_verify_compact(session_id, &instance, proof, tables)
}

fn one() -> Scalar {
    Scalar::ONE
}

fn minus_one() -> Scalar {
    -Scalar::ONE
}

/// `Commitment(H2, H3, K)`: `K = k*H2 + r*H3`, witness `[k, r]` (ACT §4.5.2).
pub(crate) fn commitment(
    g: &Generators,
    k: (&Affine<C>, &Compressed),
) -> Result<LinearRelation<C>> {
    let mut rel = LinearRelation::new(2, &[g.h[1], g.h[2], *k.0], &[g.enc[1], g.enc[2], *k.1])?;
    rel.push(LinearEquation {
        image: vec![(3, one())],
        terms: vec![(0, 1, one()), (1, 2, one())],
    });
    Ok(rel)
}

/// The tables of a [`commitment`] relation's elements.
pub(crate) fn commitment_tables(g: &Generators) -> [Option<&FixedBaseTable<C>>; 4] {
    [None, Some(&g.tables[1]), Some(&g.tables[2]), None]
}

/// `Signature(A, X_A, X_G)`: `X_A = x*A`, `X_G = x*G`, witness `[x]` (ACT §4.5.3).
pub(crate) fn signature(
    points: &[Affine<C>; 3],
    enc: &[Compressed; 3],
) -> Result<LinearRelation<C>> {
    let mut rel = LinearRelation::new(1, points, enc)?;
    rel.push(LinearEquation {
        image: vec![(2, one())],
        terms: vec![(0, 1, one())],
    });
    rel.push(LinearEquation {
        image: vec![(3, one())],
        terms: vec![(0, 0, one())],
    });
    Ok(rel)
}

/// The public part of a spend instance: `A', B̄, Ā, H1', K_n` and the bit commitments.
pub(crate) struct SpendInstance<'a> {
    pub(crate) s: u64,
    pub(crate) a: u64,
    pub(crate) l: u8,
    /// `[A', B̄, Ā, H1', K_n, Com1[..] | Com_c, Com2[..]]`.
    pub(crate) points: &'a [Affine<C>],
    pub(crate) enc: &'a [Compressed],
}

/// Number of witness scalars of a spend: `7 + (3L or 1) + (3L or 0)`.
pub(crate) fn spend_scalars(l: u8, s: u64, a: u64) -> usize {
    let l = usize::from(l);
    7 + if s > 0 { 3 * l } else { 1 } + if a > 0 { 3 * l } else { 0 }
}

/// The `Spend` relation (ACT §4.6.1): elements `H1, H2, H3, A', B̄, Ā, H1', K_n`, then `Com1`
/// (or `Com_c`), then `Com2`; witness `e, r2, r3, c, r, k*, rn`, then `b1, s1, u1` (or `rc`),
/// then `b2, s2, u2`.
pub(crate) fn spend(g: &Generators, inst: &SpendInstance<'_>) -> Result<LinearRelation<C>> {
    let l = usize::from(inst.l);
    let n_com = if inst.s > 0 { l } else { 1 } + if inst.a > 0 { l } else { 0 };
    if inst.points.len() != 5 + n_com || inst.enc.len() != inst.points.len() {
        return Err(Error::Batch);
    }
    let mut points = Vec::with_capacity(8 + n_com);
    points.extend_from_slice(&g.h[..3]);
    points.extend_from_slice(inst.points);
    let mut enc = Vec::with_capacity(8 + n_com);
    enc.extend_from_slice(&g.enc[..3]);
    enc.extend_from_slice(inst.enc);
    let mut rel = LinearRelation::new(spend_scalars(inst.l, inst.s, inst.a), &points, &enc)?;
    let (e, r2, r3, c, r, k_star, rn) = (0u32, 1, 2, 3, 4, 5, 6);
    let (h1, h2, h3, a_prime, b_bar, a_bar, h1_prime, k_n) = (1u32, 2, 3, 4, 5, 6, 7, 8);
    rel.push(LinearEquation {
        image: vec![(a_bar, one())],
        terms: vec![(e, a_prime, minus_one()), (r2, b_bar, one())],
    });
    rel.push(LinearEquation {
        image: vec![(h1_prime, one())],
        terms: vec![
            (r3, b_bar, one()),
            (c, h1, minus_one()),
            (r, h3, minus_one()),
        ],
    });
    rel.push(LinearEquation {
        image: vec![(k_n, one())],
        terms: vec![(k_star, h2, one()), (rn, h3, one())],
    });
    let mut pow2 = Vec::with_capacity(l);
    let mut p = one();
    for _ in 0..l {
        pow2.push(p);
        p = p.double();
    }
    // A range proof for `amount` (`s` or `-a` on the image of `H1`) over the commitments from
    // element `first`, with bits, blinds and products from scalar `scalar`.
    let range = |rel: &mut LinearRelation<C>, first: u32, scalar: u32, amount: Scalar| {
        let l32 = inst.l as u32;
        for j in 0..l32 {
            let com = first + j;
            let (b, sj, u) = (scalar + j, scalar + l32 + j, scalar + 2 * l32 + j);
            rel.push(LinearEquation {
                image: vec![(com, one())],
                terms: vec![(b, h1, one()), (sj, h3, one())],
            });
            rel.push(LinearEquation {
                image: vec![(com, one())],
                terms: vec![(b, com, one()), (u, h3, one())],
            });
        }
        let mut image = vec![(h1, amount)];
        let mut terms = vec![(c, h1, one())];
        for (j, p) in pow2.iter().enumerate() {
            image.push((first + j as u32, *p));
            terms.push((scalar + l32 + j as u32, h3, *p));
        }
        rel.push(LinearEquation { image, terms });
    };
    let mut next_element = 9u32;
    let mut next_scalar = 7u32;
    if inst.s > 0 {
        range(&mut rel, next_element, next_scalar, Scalar::from(inst.s));
        next_element += inst.l as u32;
        next_scalar += 3 * inst.l as u32;
    } else {
        rel.push(LinearEquation {
            image: vec![(next_element, one())],
            terms: vec![(c, h1, one()), (next_scalar, h3, one())],
        });
        next_element += 1;
        next_scalar += 1;
    }
    if inst.a > 0 {
        range(&mut rel, next_element, next_scalar, -Scalar::from(inst.a));
    }
    Ok(rel)
}

/// The fixed-base tables of a spend relation's elements (`G`, `H1`, `H2`, `H3`; the rest are
/// variable bases).
pub(crate) fn spend_tables(g: &Generators, elements: usize) -> Vec<Option<&FixedBaseTable<C>>> {
    let mut t = vec![None; elements];
    for (i, slot) in t.iter_mut().enumerate().take(4).skip(1) {
        *slot = g.tables.get(i - 1);
    }
    t
}
