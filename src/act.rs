//! Anonymous Credit Tokens, `ACTv1-P256-SHA256` (draft-authors-mole-act, the MoLE
//! *Credential*, as pinned by Google's act-rs at drafts commit `03d3069`).
//!
//! A keyed-verification credential holding a hidden balance `c` in `[0, 2^L)`. The Moderator
//! (issuer and verifier: it holds the one key) issues a credential with an initial balance;
//! the Client spends public amounts `s` from it, with an optional top-up allowance `a`, and
//! each spend reveals a nullifier (the credential's `k`) that the Moderator records. The
//! Moderator answers a spend with a refund of `t <= s + a`, a fresh credential for the hidden
//! balance `c - s + t`.
//!
//! | step | who | function |
//! | --- | --- | --- |
//! | `GenerateKeyPair` / `DeriveKeyPair` (ACT §3.4) | Moderator | [`PrivateKey::generate`], [`PrivateKey::derive`] |
//! | `CreateContextScalar` (ACT §4.2) | both | [`CredentialContext::new`] |
//! | `IssueRequest` (ACT §4.5.2) | Client | [`ClientIssuanceState::request`] |
//! | `IssueResponse` (ACT §4.5.3) | Moderator | [`PrivateKey::issue`] |
//! | `FinalizeIssue` (ACT §4.5.4) | Client | [`ClientIssuanceState::finalize`] |
//! | `ProveSpend` (ACT §4.6.2) | Client | [`Credential::prove_spend`] |
//! | `VerifySpend` (ACT §4.6.3) | Moderator | [`PrivateKey::verify_spend`] |
//! | `IssueRefund` (ACT §4.6.4) | Moderator | [`PrivateKey::issue_refund`] |
//! | verify, record the nullifier, refund (ACT §6) | Moderator | [`PrivateKey::redeem`] |
//! | `FinalizeRefund` (ACT §4.6.5) | Client | [`ClientSpendState::finalize`] |
//!
//! Wire messages are the draft's fixed-size encodings (ACT §4.7), decoded strictly (exact
//! length, canonical scalars, points on the curve and never the identity, amounts below
//! `2^L`). The draft's encodings carry no version: the ciphersuite identifier
//! [`CIPHERSUITE`] names the format (a later draft that changes a byte must come with a new
//! identifier, ACT §5), and this module only ever speaks `ACTv1-P256-SHA256`.
//!
//! Proofs are sigma-protocols-03 compact NARGs on the crate's one sigma-03 transcript
//! ([`crate::arc::sigma03::LinearRelation`]), with the draft's tags, session ids and prover
//! nonces derived from the witness (`DeriveNonces`, ACT §4.4.2). Deterministic entry points
//! for the vectors are in [`hazmat`]. Decisions on what the draft leaves open: `docs/act.md`.

use core::fmt;
use std::sync::OnceLock;

use elliptic_curve::ff::Field;
use zeroize::Zeroizing;

use crate::group::{
    self, expand_message, Affine, Curve, FixedBaseTable, MessageExpansion, NistP256, Point, Xmd,
};
use crate::transcript::len_prefix;
use crate::wire::Reader;
use crate::{Error, Result};

pub mod hazmat;
mod issuance;
mod proofs;
mod spend;

pub use issuance::{
    ClientIssuanceState, Credential, IssueRequest, IssueRequestResult, IssueResponse,
};
pub use spend::{
    ClientSpendState, MemoryNullifierStore, NullifierStore, Redeemed, Refund, Spend, SpendResult,
    VerifiedSpend,
};

type C = NistP256;
type Scalar = group::Scalar<C>;
type Compressed = <C as Curve>::Compressed;

/// The ciphersuite identifier (ACT §5.1).
pub const IDENTIFIER: &str = "P256-SHA256";
/// `ctx_proto = "ACTv1-" || identifier`: the versioned name of this wire format and of every
/// domain separation tag.
pub const CIPHERSUITE: &str = "ACTv1-P256-SHA256";
const CTX: &[u8] = CIPHERSUITE.as_bytes();
/// The largest balance width `L` (ACT §4.1, `MAX_BIT_LENGTH`).
pub const MAX_BIT_LENGTH: u8 = 64;
/// `Nseed`: every algorithm draws its randomness in blocks of this many bytes.
pub const SEED_LEN: usize = 48;
/// Length of a scalar encoding (`Ns`).
pub const SCALAR_LEN: usize = 32;
/// Length of a compressed element (`Ne`).
pub const ELEMENT_LEN: usize = 33;

// ---------------------------------------------------------------------------------------------
// Helpers (ACT §3.3; IHAT §2, §4.2-4.4)

/// `HashToScalar(msg, "<prefix>" || ctx_proto)`: `hash_to_field` with `L = 48` over
/// `expand_message_xmd(SHA-256)`.
fn hash_to_scalar(msg: &[&[u8]], dst_prefix: &[u8]) -> Result<Scalar> {
    hash_to_scalar_in(CTX, msg, dst_prefix)
}

/// [`hash_to_scalar`] under another protocol's `ctx_proto` (Rollatini shares these helpers,
/// IHAT §4.2-4.4).
pub(crate) fn hash_to_scalar_in(ctx: &[u8], msg: &[&[u8]], dst_prefix: &[u8]) -> Result<Scalar> {
    C::hash_to_scalar(Xmd::Sha256, msg, &[dst_prefix, ctx])
}

/// `ExpandScalars(key, count)`: `HashToScalar(key || I2OSP(i, 4))` under
/// `"ExpandScalars-" || ctx_proto`; a zero scalar is `DeriveError` ([`Error::ZeroScalar`]).
fn expand_scalars(ctx: &[u8], key: &[u8; 32], count: usize) -> Result<Zeroizing<Vec<Scalar>>> {
    let mut out = Zeroizing::new(Vec::with_capacity(count));
    for i in 0..count {
        let i = u32::try_from(i).map_err(|_| Error::Batch)?.to_be_bytes();
        let s = hash_to_scalar_in(ctx, &[key, &i], b"ExpandScalars-")?;
        if group::declassify(s.is_zero()) {
            return Err(Error::ZeroScalar);
        }
        out.push(s);
    }
    Ok(out)
}

/// `DeriveScalars(rand, info, count)`: `key = expand_message_xmd(rand || U16Prefixed(info),
/// "DeriveScalars-" || ctx_proto, 32)`, then [`expand_scalars`].
fn derive_scalars(
    rand: &[u8; SEED_LEN],
    info: &[u8],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    derive_scalars_in(CTX, rand, info, count)
}

/// [`derive_scalars`] under another protocol's `ctx_proto`.
pub(crate) fn derive_scalars_in(
    ctx: &[u8],
    rand: &[u8; SEED_LEN],
    info: &[u8],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    let mut key = Zeroizing::new([0u8; 32]);
    let p = len_prefix(info.len())?;
    expand_message(
        MessageExpansion::Xmd(Xmd::Sha256),
        &[rand, &p, info],
        &[b"DeriveScalars-", ctx],
        &mut *key,
    )?;
    expand_scalars(ctx, &key, count)
}

/// `DeriveNonces(secret, label, instance, rand, count)`: `key = expand_message_xmd(
/// PadToBlock(rand) || PadToBlock(I2OSP(len(secret), 4) || secret) || U16Prefixed(label) ||
/// I2OSP(len(instance), 4) || instance, "DeriveNonces-" || ctx_proto, 32)`, then
/// [`expand_scalars`]. `instance` is given in pieces.
fn derive_nonces(
    secret: &[u8],
    label: &[u8],
    instance: &[&[u8]],
    rand: &[u8; SEED_LEN],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    derive_nonces_in(CTX, secret, label, instance, rand, count)
}

/// [`derive_nonces`] under another protocol's `ctx_proto`.
pub(crate) fn derive_nonces_in(
    ctx: &[u8],
    secret: &[u8],
    label: &[u8],
    instance: &[&[u8]],
    rand: &[u8; SEED_LEN],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    const ZEROS: [u8; 64] = [0u8; 64];
    let secret_len = u32::try_from(secret.len()).map_err(|_| Error::InputTooLong)?;
    let instance_len: usize = instance.iter().map(|p| p.len()).sum();
    let instance_len = u32::try_from(instance_len)
        .map_err(|_| Error::InputTooLong)?
        .to_be_bytes();
    let secret_pad = (64 - (4 + secret.len()) % 64) % 64;
    let label_prefix = len_prefix(label.len())?;
    let secret_len = secret_len.to_be_bytes();
    let mut msg: Vec<&[u8]> = Vec::with_capacity(8 + instance.len());
    msg.extend_from_slice(&[
        rand,
        &ZEROS[..64 - SEED_LEN],
        &secret_len,
        secret,
        &ZEROS[..secret_pad],
        &label_prefix,
        label,
        &instance_len,
    ]);
    msg.extend_from_slice(instance);
    let mut key = Zeroizing::new([0u8; 32]);
    expand_message(
        MessageExpansion::Xmd(Xmd::Sha256),
        &msg,
        &[b"DeriveNonces-", ctx],
        &mut *key,
    )?;
    expand_scalars(ctx, &key, count)
}

/// `HashToGroup(msg)` under `"HashToGroup-" || ctx_proto`.
fn hash_to_group(msg: &[u8]) -> Result<Affine<C>> {
    hash_to_group_in(CTX, &[msg])
}

/// [`hash_to_group`] of a message in pieces under another protocol's `ctx_proto`.
pub(crate) fn hash_to_group_in(ctx: &[u8], msg: &[&[u8]]) -> Result<Affine<C>> {
    let p = C::hash_to_curve(Xmd::Sha256, msg, &[b"HashToGroup-", ctx])?;
    Ok(group::to_affine(&p))
}

/// The generators `H1` (balance), `H2` (nullifier), `H3` (blinding), `H4` (context) of ACT
/// §4.1.1, their encodings and fixed-base tables.
pub(crate) struct Generators {
    pub(crate) h: [Affine<C>; 4],
    pub(crate) enc: [Compressed; 4],
    pub(crate) tables: [FixedBaseTable<C>; 4],
}

fn generators() -> Result<&'static Generators> {
    static GENERATORS: OnceLock<Option<Generators>> = OnceLock::new();
    GENERATORS
        .get_or_init(|| {
            let h = [
                hash_to_group(b"GenH1").ok()?,
                hash_to_group(b"GenH2").ok()?,
                hash_to_group(b"GenH3").ok()?,
                hash_to_group(b"GenH4").ok()?,
            ];
            Some(Generators {
                enc: h.map(|p| C::encode_compressed(&p)),
                // 7-bit windows (about 150 KB each, built once per process): 36 additions a
                // multiplication instead of 51; every spend multiplies H1 and H3 hundreds of times.
                tables: h.map(|p| FixedBaseTable::new_wide(&p)),
                h,
            })
        })
        .as_ref()
        .ok_or(Error::HashToCurve)
}

/// The generators `H1 .. H4` (ACT §4.1.1), compressed.
///
/// # Errors
/// [`Error::HashToCurve`] if hashing to the curve failed (it does not for these inputs).
pub fn generator_encodings() -> Result<[[u8; ELEMENT_LEN]; 4]> {
    let g = generators()?;
    Ok(g.enc.map(|e| {
        let mut out = [0u8; ELEMENT_LEN];
        out.copy_from_slice(e.as_ref());
        out
    }))
}

/// Checks `x < 2^L` (ACT §4.3).
fn check_amount(x: u128, l: u8) -> Result<()> {
    if x >> l == 0 {
        Ok(())
    } else {
        Err(Error::OutOfRange)
    }
}

pub(crate) fn encode_scalar(s: &Scalar) -> [u8; SCALAR_LEN] {
    let mut out = [0u8; SCALAR_LEN];
    out.copy_from_slice(C::scalar_bytes(s).as_ref());
    out
}

pub(crate) fn encode_element(p: &Affine<C>) -> [u8; ELEMENT_LEN] {
    let mut out = [0u8; ELEMENT_LEN];
    out.copy_from_slice(C::encode_compressed(p).as_ref());
    out
}

/// Two `Nseed` blocks from `rng` (an algorithm's scalars, then its prover nonces), in a wiping
/// buffer.
fn draw(rng: &mut (impl rand_core::CryptoRng + ?Sized)) -> Zeroizing<[u8; 2 * SEED_LEN]> {
    let mut rand = Zeroizing::new([0u8; 2 * SEED_LEN]);
    rng.fill_bytes(&mut *rand);
    rand
}

/// A canonical big-endian scalar (zero allowed: `DeserializeScalar`).
pub(crate) fn read_scalar(r: &mut Reader<'_>) -> Result<Scalar> {
    group::decode_scalar::<C>(r.take(SCALAR_LEN)?)
}

/// A big-endian `uint64` amount.
fn read_u64(r: &mut Reader<'_>) -> Result<u64> {
    Ok(u64::from_be_bytes(r.array()?))
}

/// A finalisation that failed, with the state handed back: the Client keeps it and may try
/// again (a lost or corrupted refund is asked for again, ACT §4.6.5; `docs/act.md`).
pub struct Rejected<S> {
    /// The unchanged state (boxed: a secret state is zeroized when the box drops).
    pub state: Box<S>,
    /// Why the message was refused.
    pub error: Error,
}

impl<S> fmt::Debug for Rejected<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rejected")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// The secret scalar of `DeriveKeyPair(seed, info)` (ACT §3.4, IHAT §4.4) under `ctx_proto`
/// `ctx`: the first non-zero `HashToScalar(seed || U16Prefixed(info) || I2OSP(counter, 1))`
/// under `"DeriveKeyPair-" || ctx`, `counter = 0 .. 255`.
pub(crate) fn derive_key_scalar(ctx: &[u8], seed: &[u8; SEED_LEN], info: &[u8]) -> Result<Scalar> {
    let p = len_prefix(info.len())?;
    for counter in 0..=255u8 {
        let sk = hash_to_scalar_in(ctx, &[seed, &p, info, &[counter]], b"DeriveKeyPair-")?;
        if !group::declassify(sk.is_zero()) {
            return Ok(sk);
        }
    }
    Err(Error::DeriveKeyPair)
}

// ---------------------------------------------------------------------------------------------
// Configuration (ACT §4.1-4.2)

/// What both parties agree on out of band: the balance width `L` and the credential context
/// scalar `ctx = HashToScalar(U16Prefixed(ctx_cred) || "CredentialContext")` (ACT §4.2).
/// Public.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CredentialContext {
    l: u8,
    ctx: Scalar,
}

impl fmt::Debug for CredentialContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CredentialContext")
            .field("l", &self.l)
            .finish_non_exhaustive()
    }
}

impl CredentialContext {
    /// `CreateContextScalar(ctx_cred)` with balance width `l`, `ctx_cred` used as given (the
    /// vectors' form). Prefer [`Self::with_width`], which binds `L` into the context.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for `l` outside `1..=64`; [`Error::InputTooLong`] for a
    /// `ctx_cred` of 65536 bytes or more.
    pub fn new(ctx_cred: &[u8], l: u8) -> Result<Self> {
        if l == 0 || l > MAX_BIT_LENGTH {
            return Err(Error::UnsupportedValue);
        }
        let p = len_prefix(ctx_cred.len())?;
        let ctx = hash_to_scalar(&[&p, ctx_cred, b"CredentialContext"], b"HashToScalar-")?;
        Ok(Self { l, ctx })
    }

    /// [`Self::new`] of `ctx_cred || I2OSP(L, 1)`, as ACT §4.1 recommends: a Moderator that
    /// changes `L` changes the context, so credentials of the old width stop verifying
    /// instead of being misread. This crate's default (`docs/act.md`).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_width(ctx_cred: &[u8], l: u8) -> Result<Self> {
        let mut v = Vec::with_capacity(ctx_cred.len() + 1);
        v.extend_from_slice(ctx_cred);
        v.push(l);
        Self::new(&v, l)
    }

    /// The balance width `L`.
    pub fn bit_length(&self) -> u8 {
        self.l
    }

    /// The context scalar `ctx`, encoded.
    pub fn scalar_bytes(&self) -> [u8; SCALAR_LEN] {
        encode_scalar(&self.ctx)
    }
}

// ---------------------------------------------------------------------------------------------
// Keys (ACT §3.4, §4.1.2)

/// The Moderator's public key `pkM = skM * B` (33 bytes compressed).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    pk: Affine<C>,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({:02x?})", &encode_element(&self.pk)[..])
    }
}

impl PublicKey {
    /// The compressed encoding.
    pub fn to_bytes(&self) -> [u8; ELEMENT_LEN] {
        encode_element(&self.pk)
    }

    /// Strict decoding (33 bytes, on the curve, not the identity).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            pk: C::decode_compressed(bytes)?,
        })
    }
}

/// The Moderator's key `skM`: it signs and it verifies (keyed verification). Zeroized on
/// drop, `Debug` redacted, compared in constant time.
pub struct PrivateKey {
    sk: Scalar,
    public: PublicKey,
}

/// Zeroize on drop, a redacted `Debug` and constant-time equality for a key type whose secret
/// scalar is its field `sk` (ACT's [`PrivateKey`], Rollatini's `Anchor`).
macro_rules! secret_key_traits {
    ($ty:ident) => {
        impl zeroize::Zeroize for $ty {
            fn zeroize(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.sk);
            }
        }

        impl Drop for $ty {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(self);
            }
        }

        impl zeroize::ZeroizeOnDrop for $ty {}

        impl core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($ty), "(<redacted>)"))
            }
        }

        impl subtle::ConstantTimeEq for $ty {
            fn ct_eq(&self, o: &Self) -> subtle::Choice {
                subtle::ConstantTimeEq::ct_eq(&self.sk, &o.sk)
            }
        }

        impl PartialEq for $ty {
            fn eq(&self, o: &Self) -> bool {
                subtle::ConstantTimeEq::ct_eq(self, o).into()
            }
        }

        impl Eq for $ty {}
    };
}
pub(crate) use secret_key_traits;

secret_key_traits!(PrivateKey);

impl PrivateKey {
    /// `GenerateKeyPair()`: `DeriveKeyPair(random(48), "GenerateKeyPair")`.
    ///
    /// # Errors
    /// [`Error::DeriveKeyPair`] (probability `2^-256 * 256`).
    pub fn generate(rng: &mut (impl rand_core::CryptoRng + ?Sized)) -> Result<Self> {
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        rng.fill_bytes(&mut *seed);
        Self::derive(&seed, b"GenerateKeyPair")
    }

    /// `DeriveKeyPair(seed, info)`: the first non-zero `HashToScalar(seed ||
    /// U16Prefixed(info) || I2OSP(counter, 1))` under `"DeriveKeyPair-" || ctx_proto`,
    /// `counter = 0 .. 255`.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for `info` of 65536 bytes or more; [`Error::DeriveKeyPair`]
    /// when all 256 candidates are zero.
    pub fn derive(seed: &[u8; SEED_LEN], info: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(derive_key_scalar(CTX, seed, info)?))
    }

    fn from_scalar(sk: Scalar) -> Self {
        let mut pk = group::to_affine(&group::mul_generator::<C>(&sk));
        // Published: the public key (`skM` stays secret).
        group::validation::publish(&mut pk);
        Self {
            sk,
            public: PublicKey { pk },
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// `SerializeScalar(skM)`, in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SCALAR_LEN]> {
        Zeroizing::new(encode_scalar(&self.sk))
    }

    /// Strict decoding (32 bytes, canonical, non-zero).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::NonCanonicalScalar`] or [`Error::ZeroScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(group::decode_nonzero_scalar::<C>(bytes)?))
    }

    /// `SigningExponent(skM, label, X_A)` (ACT §4.5.1): `e = DeriveNonces(SerializeScalar(skM),
    /// "e", U16Prefixed(label) || U16Prefixed(SerializeElement(X_A)), rand, 1)[0]`, and
    /// `x = e + skM`.
    fn signing_exponent(
        &self,
        label: &[u8],
        x_a: &Compressed,
        rand: &[u8; SEED_LEN],
    ) -> Result<(Scalar, Scalar)> {
        let secret = self.to_bytes();
        let lp = len_prefix(label.len())?;
        let ep = len_prefix(ELEMENT_LEN)?;
        let e = derive_nonces(&*secret, b"e", &[&lp, label, &ep, x_a.as_ref()], rand, 1)?;
        let e = *e.first().ok_or(Error::Batch)?;
        let x = e + self.sk;
        if group::declassify(x.is_zero()) {
            return Err(Error::Inverse);
        }
        Ok((e, x))
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    PublicKey,
    |k: &PublicKey| k.to_bytes(),
    PublicKey::from_bytes
);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    PrivateKey,
    |k: &PrivateKey| k.to_bytes(),
    PrivateKey::from_bytes
);

/// `B + sum k_i * H_i` over the generators, constant time (fixed-base tables); `hs[i]` is the
/// index of the generator (0 = `H1` .. 3 = `H4`).
fn commit(g: &Generators, base: bool, terms: &[(usize, &Scalar)]) -> Point<C> {
    let mut acc = if base {
        Point::<C>::from(Affine::<C>::generator())
    } else {
        Point::<C>::IDENTITY
    };
    for (i, k) in terms {
        if let Some(t) = g.tables.get(*i) {
            acc += t.mul(k);
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert!(check_amount(15, 4).is_ok());
        assert_eq!(check_amount(16, 4), Err(Error::OutOfRange));
        assert!(check_amount(u128::from(u64::MAX), 64).is_ok());
        assert_eq!(
            check_amount(u128::from(u64::MAX) + 1, 64),
            Err(Error::OutOfRange)
        );
    }

    #[test]
    fn widths() {
        assert_eq!(
            CredentialContext::new(b"x", 0).err(),
            Some(Error::UnsupportedValue)
        );
        assert_eq!(
            CredentialContext::new(b"x", 65).err(),
            Some(Error::UnsupportedValue)
        );
        assert!(CredentialContext::new(b"x", 64).is_ok());
    }
}
