//! The partially binding vector commitment of the issuer-hiding proof (IHAT §6.2): a tree of
//! pair commitments `CommitStep(Q, left, right, rho) = SerializeElement(rho * B +
//! HashToScalar(left) * Q + HashToScalar(right) * P(Q))`, one key `Q` and one opening `rho`
//! per level, an odd last node carried up unchanged.
//!
//! Every node enters its parent through `HashToScalar`, so a level is held as the hashes of
//! its nodes. The prover's functions ([`commit_at`], [`equivocate`]) compute every node of
//! every level and touch the binding index only through constant-time selection; the
//! verifier's ([`vartime_commit`]) and the prover's recomputation over the public leaves run
//! in variable time on public data.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use super::permutation::{self, Direction};
use super::{encode_nonidentity, hash_to_scalar, Affine, Scalar, C, ELEMENT_LEN};
use crate::group::{self, Point};
use crate::{Error, Result};

/// The encoding of a node.
pub(crate) type Node = [u8; ELEMENT_LEN];

/// `Depth(n)`: the least `q` with `2^q >= n`.
pub(crate) fn depth(n: usize) -> usize {
    (usize::BITS - n.saturating_sub(1).leading_zeros()) as usize
}

/// A level's key `Q` with `P(Q)`.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    pub(crate) q: Affine<C>,
    pub(crate) pq: Affine<C>,
}

impl Key {
    /// A key received from the prover: `P(Q)` computed from it (public, variable time).
    pub(crate) fn vartime_public(q: Affine<C>) -> Result<Self> {
        Ok(Self {
            q,
            pq: permutation::vartime_p(&q, Direction::Forward)?,
        })
    }

    /// `GenerateStep`: the key whose side opposite `bind_left` is `t = trapdoor * B` (the bound
    /// side is `left` when `bind_left`). Constant time.
    pub(crate) fn generate(bind_left: Choice, t: &Affine<C>) -> Result<Self> {
        let (q, pq) = permutation::pair(t, bind_left)?;
        Ok(Self { q, pq })
    }
}

/// One level up in constant time: the commitment of each pair under `key` and `rho` (the
/// prover's first move, where the hashes depend on the secret index).
fn ct_step_points(level: &[Scalar], key: &Key, rho: &Scalar) -> Vec<Point<C>> {
    level
        .chunks_exact(2)
        .map(|pair| {
            group::mul_generator::<C>(rho)
                + group::mul_affine::<C>(&key.q, &pair[0])
                + group::mul_affine::<C>(&key.pq, &pair[1])
        })
        .collect()
}

/// One level up in variable time, over public hashes and a public (sent) opening.
fn vartime_step_points(level: &[Scalar], key: &Key, rho: &Scalar) -> Vec<Point<C>> {
    let bases = [
        Point::<C>::from(Affine::<C>::generator()),
        Point::<C>::from(key.q),
        Point::<C>::from(key.pq),
    ];
    level
        .chunks_exact(2)
        .map(|pair| group::vartime_lincomb::<C, 3>(&bases, &[*rho, pair[0], pair[1]]))
        .collect()
}

/// How one level's pairs are committed: [`ct_step_points`] or [`vartime_step_points`].
type StepPoints = fn(&[Scalar], &Key, &Scalar) -> Vec<Point<C>>;

/// A level of the tree after one step: the hashes of the next level, or the root.
enum Next {
    Hashes(Zeroizing<Vec<Scalar>>),
    Root(Node),
}

/// One step: each pair committed, an odd last node carried up. A level of two nodes gives
/// the root. An identity commitment (no encoding) is `error`.
fn next_level(
    level: &[Scalar],
    key: &Key,
    rho: &Scalar,
    step: StepPoints,
    error: Error,
) -> Result<Next> {
    let points = step(level, key, rho);
    let mut affine = vec![group::affine_identity::<C>(); points.len()];
    group::normalize_slice::<C>(&points, &mut affine)?;
    if let [root] = affine.as_slice() {
        if level.len() == 2 {
            return Ok(Next::Root(encode_nonidentity(root).map_err(|_| error)?));
        }
    }
    let mut out = Zeroizing::new(Vec::with_capacity(level.len().div_ceil(2)));
    for p in &affine {
        let enc = encode_nonidentity(p).map_err(|_| error)?;
        out.push(hash_to_scalar(&[&enc])?);
    }
    if level.len() % 2 == 1 {
        if let Some(last) = level.last() {
            out.push(*last);
        }
    }
    Ok(Next::Hashes(out))
}

/// `VecCommit(V, keys, openings)` over public leaves (the verifier): the root, or the leaf
/// itself for one leaf. Variable time.
///
/// # Errors
/// `error` for an identity commitment or mismatched lengths.
pub(crate) fn vartime_commit(
    leaves: &[Node],
    keys: &[Key],
    openings: &[Scalar],
    error: Error,
) -> Result<Node> {
    if leaves.is_empty() || keys.len() != depth(leaves.len()) || openings.len() != keys.len() {
        return Err(error);
    }
    if let [leaf] = leaves {
        return Ok(*leaf);
    }
    let mut level = Zeroizing::new(Vec::with_capacity(leaves.len()));
    for leaf in leaves {
        level.push(hash_to_scalar(&[leaf])?);
    }
    for (key, rho) in keys.iter().zip(openings) {
        match next_level(&level, key, rho, vartime_step_points, error)? {
            Next::Hashes(h) => level = h,
            Next::Root(root) => return Ok(root),
        }
    }
    Err(error)
}

/// The first move of the proof: the hashes of every level below the root, and the root.
pub(crate) struct FirstMove {
    levels: Vec<Zeroizing<Vec<Scalar>>>,
    pub(crate) root: Node,
}

/// `CommitValAtPlace(keys, n, index, value, openings)`: `value` at leaf `index`, the empty
/// string at every other leaf. Constant time in `index`, `value` and the openings.
pub(crate) fn commit_at(
    keys: &[Key],
    n: usize,
    index: u16,
    value: &Node,
    openings: &[Scalar],
) -> Result<FirstMove> {
    if n == 0 || keys.len() != depth(n) || openings.len() != keys.len() {
        return Err(Error::InvalidInput);
    }
    if n == 1 {
        return Ok(FirstMove {
            levels: Vec::new(),
            root: *value,
        });
    }
    let empty = hash_to_scalar(&[b""])?;
    let held = Zeroizing::new(hash_to_scalar(&[value])?);
    let mut level = Zeroizing::new(Vec::with_capacity(n));
    for i in 0..n {
        let at = (i as u64).ct_eq(&u64::from(index));
        level.push(Scalar::conditional_select(&empty, &held, at));
    }
    let mut levels = Vec::with_capacity(keys.len());
    for (key, rho) in keys.iter().zip(openings) {
        match next_level(&level, key, rho, ct_step_points, Error::InvalidInput)? {
            Next::Hashes(h) => levels.push(core::mem::replace(&mut level, h)),
            Next::Root(root) => {
                levels.push(level);
                return Ok(FirstMove { levels, root });
            }
        }
    }
    Err(Error::InvalidInput)
}

/// `VecEquivocate`: the openings under which the public leaves `new` (their encodings)
/// commit to the root of `first`. At level `j` the sibling of the binding path changes, and
/// the opening shifts by the difference of its hashes times the trapdoor; an odd last node on
/// the path keeps its opening. Constant time in `index`, the trapdoors and the first openings;
/// the tree over `new` is public (its openings are sent) and recomputed in variable time.
pub(crate) fn equivocate(
    first: &FirstMove,
    keys: &[Key],
    trapdoors: &[Scalar],
    openings: &[Scalar],
    new: &[Node],
    index: u16,
) -> Result<Vec<Scalar>> {
    let q = keys.len();
    if first.levels.len() != q || trapdoors.len() != q || openings.len() != q {
        return Err(Error::InvalidInput);
    }
    let mut level = Zeroizing::new(Vec::with_capacity(new.len()));
    for leaf in new {
        level.push(hash_to_scalar(&[leaf])?);
    }
    let mut out = Vec::with_capacity(q);
    let mut path = u64::from(index);
    let per_level = first.levels.iter().zip(keys).zip(openings).zip(trapdoors);
    for (j, (((old, key), rho), trap)) in per_level.enumerate() {
        let m = old.len();
        if level.len() != m {
            return Err(Error::InvalidInput);
        }
        let partner = path ^ 1;
        let mut old_p = Zeroizing::new(Scalar::ZERO);
        let mut new_p = Zeroizing::new(Scalar::ZERO);
        for (k, (o, n)) in old.iter().zip(level.iter()).enumerate() {
            let at = (k as u64).ct_eq(&partner);
            old_p.conditional_assign(o, at);
            new_p.conditional_assign(n, at);
        }
        let carried = path.ct_eq(&(m as u64).wrapping_sub(1)) & Choice::from((m & 1) as u8);
        let shifted = Zeroizing::new(*rho + (*old_p - *new_p) * trap);
        let mut opening = Scalar::conditional_select(&shifted, rho, carried);
        // Published: the openings are sent.
        crate::group::validation::publish(&mut opening);
        out.push(opening);
        if j + 1 < q {
            match next_level(
                &level,
                key,
                &opening,
                vartime_step_points,
                Error::InvalidInput,
            )? {
                Next::Hashes(h) => level = h,
                Next::Root(_) => return Err(Error::InvalidInput),
            }
        }
        path >>= 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths() {
        let want = [
            (1, 0),
            (2, 1),
            (3, 2),
            (4, 2),
            (5, 3),
            (8, 3),
            (9, 4),
            (33, 6),
        ];
        for (n, q) in want {
            assert_eq!(depth(n), q, "{n}");
        }
        assert_eq!(depth(65535), 16);
    }
}
