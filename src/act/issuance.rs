//! Issuance (ACT §4.5): `IssueRequest`, `IssueResponse`, `FinalizeIssue`, and the credential.

use core::fmt;

use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::proofs::{self, ISSUE_REQUEST, ISSUE_RESPONSE};
use super::{
    check_amount, commit, derive_scalars, draw, encode_element, encode_scalar, generators,
    read_scalar, read_u64, CredentialContext, PrivateKey, PublicKey, Reader, Rejected, Scalar, C,
    ELEMENT_LEN, SCALAR_LEN, SEED_LEN,
};
use crate::group::{self, validation, Affine, Curve, Point};
use crate::{Error, Result};

/// Length of an [`IssueRequest`]: `K || pok` (129 bytes).
pub const ISSUE_REQUEST_LEN: usize = ELEMENT_LEN + 3 * SCALAR_LEN;
/// Length of an [`IssueResponse`] and of a refund: `A || e || uint64 || pok` (137 bytes).
pub const RESPONSE_LEN: usize = ELEMENT_LEN + SCALAR_LEN + 8 + 2 * SCALAR_LEN;
/// Length of a stored [`Credential`]: `k || uint64 c || r || A || e` (137 bytes).
pub const CREDENTIAL_LEN: usize = 3 * SCALAR_LEN + 8 + ELEMENT_LEN;
/// Length of a stored [`ClientIssuanceState`]: `k || r || K` (97 bytes).
pub const ISSUANCE_STATE_LEN: usize = 2 * SCALAR_LEN + ELEMENT_LEN;

/// `IssueRequestMessage` (ACT §4.5.2, §4.7): the commitment `K = k*H2 + r*H3` and its proof.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IssueRequest {
    pub(crate) k: Affine<C>,
    pub(crate) proof: [u8; 3 * SCALAR_LEN],
}

impl fmt::Debug for IssueRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssueRequest").finish_non_exhaustive()
    }
}

impl IssueRequest {
    /// `K || pok`, 129 bytes.
    pub fn to_bytes(&self) -> [u8; ISSUE_REQUEST_LEN] {
        let mut out = [0u8; ISSUE_REQUEST_LEN];
        out[..ELEMENT_LEN].copy_from_slice(&encode_element(&self.k));
        out[ELEMENT_LEN..].copy_from_slice(&self.proof);
        out
    }

    /// Strict decoding: exactly 129 bytes, `K` on the curve and not the identity, the proof's
    /// scalars canonical.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let k = r.element::<C>()?;
        let proof = r.array::<{ 3 * SCALAR_LEN }>()?;
        r.finish()?;
        check_proof_scalars(&proof)?;
        Ok(Self { k, proof })
    }
}

/// Every 32-byte piece of a proof is a canonical scalar.
pub(crate) fn check_proof_scalars(proof: &[u8]) -> Result<()> {
    if !proof.len().is_multiple_of(SCALAR_LEN) {
        return Err(Error::InvalidLength);
    }
    for chunk in proof.chunks_exact(SCALAR_LEN) {
        group::decode_scalar::<C>(chunk)?;
    }
    Ok(())
}

/// The Client's secrets of one request (`k`, `r`, `K`); consumed by
/// [`ClientIssuanceState::finalize`]. Zeroized on drop; `Debug` redacted; not `Clone`.
pub struct ClientIssuanceState {
    pub(crate) k: Scalar,
    pub(crate) r: Scalar,
    pub(crate) big_k: Affine<C>,
}

impl Zeroize for ClientIssuanceState {
    fn zeroize(&mut self) {
        self.k.zeroize();
        self.r.zeroize();
    }
}

impl Drop for ClientIssuanceState {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for ClientIssuanceState {}

impl fmt::Debug for ClientIssuanceState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientIssuanceState(<redacted>)")
    }
}

/// The output of [`ClientIssuanceState::request`]: the wire message and the private state.
#[derive(Debug)]
pub struct IssueRequestResult {
    /// Send to the Moderator.
    pub message: IssueRequest,
    /// Keep for [`ClientIssuanceState::finalize`].
    pub state: ClientIssuanceState,
}

impl ClientIssuanceState {
    /// `IssueRequest()` (ACT §4.5.2): `(k, r) = DeriveScalars(random(48), "IssueRequest", 2)`,
    /// `K = k*H2 + r*H3` and its proof (nonces from a second `random(48)`). Constant time.
    ///
    /// # Errors
    /// [`Error::ZeroScalar`] for a derived zero scalar (probability `~2^-256`).
    pub fn request(rng: &mut (impl rand_core::CryptoRng + ?Sized)) -> Result<IssueRequestResult> {
        let rand = draw(rng);
        Self::request_with(&rand)
    }

    pub(crate) fn request_with(rand: &[u8; 2 * SEED_LEN]) -> Result<IssueRequestResult> {
        let (r0, r1) = split_rand(rand);
        let g = generators()?;
        let d = derive_scalars(r0, ISSUE_REQUEST, 2)?;
        // ok: `derive_scalars` returned exactly 2 scalars.
        let (k, r) = (d[0], d[1]);
        let mut big_k = group::to_affine(&commit(g, false, &[(1, &k), (2, &r)]));
        // Published: `K` is the request message (`k`, `r` stay secret).
        validation::publish(&mut big_k);
        if group::declassify(big_k.is_identity()) {
            return Err(Error::IdentityElement);
        }
        let enc = C::encode_compressed(&big_k);
        let rel = proofs::commitment(g, (&big_k, &enc))?;
        let sid = proofs::session_id(ISSUE_REQUEST, &[])?;
        let pok = proofs::prove(
            &sid,
            &rel,
            &[k, r],
            r1,
            &proofs::commitment_tables(g),
            &[None; 4],
        )?;
        let mut proof = [0u8; 3 * SCALAR_LEN];
        proof.copy_from_slice(pok.get(..3 * SCALAR_LEN).ok_or(Error::InvalidLength)?);
        Ok(IssueRequestResult {
            message: IssueRequest { k: big_k, proof },
            state: ClientIssuanceState { k, r, big_k },
        })
    }

    /// `k || r || K` (97 bytes; a local storage format), in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; ISSUANCE_STATE_LEN]> {
        let mut out = Zeroizing::new([0u8; ISSUANCE_STATE_LEN]);
        out[..32].copy_from_slice(&encode_scalar(&self.k));
        out[32..64].copy_from_slice(&encode_scalar(&self.r));
        out[64..].copy_from_slice(&encode_element(&self.big_k));
        out
    }

    /// Strict decoding of [`Self::to_bytes`].
    ///
    /// # Errors
    /// Length, scalar and point decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut rd = Reader::new(bytes);
        let k = read_scalar(&mut rd)?;
        let r = read_scalar(&mut rd)?;
        let big_k = rd.element::<C>()?;
        rd.finish()?;
        Ok(Self { k, r, big_k })
    }

    /// `FinalizeIssue` (ACT §4.5.4): checks `c < 2^L`, verifies the response's proof against
    /// the Client's own `X_A = B + c*H1 + ctx*H4 + K` and `X_G = e*B + pkM`, and returns the
    /// credential `(k, c, r, A, e)`. On error the state is handed back in [`Rejected`] (a
    /// Client may retry with another response).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for `c >= 2^L`; [`Error::InvalidInput`] for a state whose `k`,
    /// `r` do not open its `K` (corrupted storage); [`Error::InvalidProof`] if the proof fails.
    pub fn finalize(
        self,
        ctx: &CredentialContext,
        pk: &PublicKey,
        response: &IssueResponse,
    ) -> core::result::Result<Credential, Rejected<Self>> {
        match self.check(ctx, pk, response) {
            Ok(()) => Ok(Credential {
                k: self.k,
                c: response.c,
                r: self.r,
                a: response.a,
                e: response.e,
            }),
            Err(error) => Err(Rejected {
                state: Box::new(self),
                error,
            }),
        }
    }

    fn check(
        &self,
        ctx: &CredentialContext,
        pk: &PublicKey,
        response: &IssueResponse,
    ) -> Result<()> {
        check_amount(u128::from(response.c), ctx.l)?;
        let g = generators()?;
        // A stored state whose `k`, `r` no longer open `K` (corrupted storage): refused in
        // constant time instead of a credential that can never be spent.
        let opened = commit(g, false, &[(1, &self.k), (2, &self.r)]);
        if !group::declassify(group::ct_eq_affine::<C>(
            &group::to_affine(&opened),
            &self.big_k,
        )) {
            return Err(Error::InvalidInput);
        }
        let x_a = issue_x_a(g, ctx, response.c, &self.big_k);
        let x_g = group::vartime_mul_generator_add::<C>(&response.e, &Scalar::ONE, &pk.pk);
        verify_signature(g, ISSUE_RESPONSE, &response.a, &x_a, &x_g, &response.proof)
    }
}

pub(crate) fn split_rand(rand: &[u8; 2 * SEED_LEN]) -> (&[u8; SEED_LEN], &[u8; SEED_LEN]) {
    let (a, b) = rand.split_at(SEED_LEN);
    // ok: both halves are exactly `SEED_LEN` bytes.
    (
        a.try_into().unwrap_or(&[0u8; SEED_LEN]),
        b.try_into().unwrap_or(&[0u8; SEED_LEN]),
    )
}

/// `X_A = B + c*H1 + ctx*H4 + K` (public values; variable time).
fn issue_x_a(g: &super::Generators, ctx: &CredentialContext, c: u64, k: &Affine<C>) -> Point<C> {
    Point::<C>::from(Affine::<C>::generator())
        + g.tables[0].vartime_mul(&Scalar::from(c))
        + g.tables[3].vartime_mul(&ctx.ctx)
        + Point::<C>::from(*k)
}

/// Verifies a `Signature(A, X_A, X_G)` proof under `label` (variable time: public values).
pub(crate) fn verify_signature(
    g: &super::Generators,
    label: &[u8],
    a: &Affine<C>,
    x_a: &Point<C>,
    x_g: &Point<C>,
    proof: &[u8],
) -> Result<()> {
    let _ = g;
    let pts = group::normalize_array::<C, 2>(&[*x_a, *x_g]);
    let points = [*a, pts[0], pts[1]];
    let enc = points.map(|p| C::encode_compressed(&p));
    let rel = proofs::signature(&points, &enc)?;
    let sid = proofs::session_id(label, &[])?;
    proofs::verify(&sid, &rel, proof, &[None, None, None, None])
}

/// The Moderator's side of a signature: `e = SigningExponent(skM, label, X_A)`, `x = e + skM`,
/// `A = x^-1 * X_A`, and the proof of `Signature(A, X_A, x*B)` (constant time in `skM`).
pub(crate) fn sign(
    sk: &PrivateKey,
    label: &[u8],
    x_a: &Point<C>,
    rand: &[u8; 2 * SEED_LEN],
) -> Result<(Affine<C>, Scalar, [u8; 2 * SCALAR_LEN])> {
    let (r0, r1) = split_rand(rand);
    let x_a = group::to_affine(x_a);
    if bool::from(x_a.is_identity()) {
        return Err(Error::InvalidInput);
    }
    let x_a_enc = C::encode_compressed(&x_a);
    let (mut e, mut x) = sk.signing_exponent(label, &x_a_enc, r0)?;
    let mut x_inv = group::invert::<C>(&x)?;
    let mut pts = group::normalize_array::<C, 2>(&[
        group::mul_affine::<C>(&x_a, &x_inv),
        group::mul_generator::<C>(&x),
    ]);
    x_inv.zeroize();
    // Published: `A = x^-1 * X_A` and `e` are the response message, `X_G = x*G = e*G + pkM` is
    // recomputed by the Client (`x = e + skM` and `skM` stay secret).
    validation::publish(&mut pts);
    validation::publish(&mut e);
    let points = [pts[0], x_a, pts[1]];
    let enc = points.map(|p| C::encode_compressed(&p));
    let rel = proofs::signature(&points, &enc)?;
    let sid = proofs::session_id(label, &[])?;
    let pok = proofs::prove(&sid, &rel, &[x], r1, &[None, None, None, None], &[None; 4]);
    x.zeroize();
    let pok = pok?;
    let mut proof = [0u8; 2 * SCALAR_LEN];
    proof.copy_from_slice(pok.get(..2 * SCALAR_LEN).ok_or(Error::InvalidLength)?);
    Ok((pts[0], e, proof))
}

/// `IssueResponseMessage` (ACT §4.5.3, §4.7): `A || e || uint64 c || pok`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IssueResponse {
    pub(crate) a: Affine<C>,
    pub(crate) e: Scalar,
    pub(crate) c: u64,
    pub(crate) proof: [u8; 2 * SCALAR_LEN],
}

impl fmt::Debug for IssueResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssueResponse")
            .field("c", &self.c)
            .finish_non_exhaustive()
    }
}

pub(crate) fn encode_response(
    a: &Affine<C>,
    e: &Scalar,
    amount: u64,
    proof: &[u8; 2 * SCALAR_LEN],
) -> [u8; RESPONSE_LEN] {
    let mut out = [0u8; RESPONSE_LEN];
    out[..33].copy_from_slice(&encode_element(a));
    out[33..65].copy_from_slice(&encode_scalar(e));
    out[65..73].copy_from_slice(&amount.to_be_bytes());
    out[73..].copy_from_slice(proof);
    out
}

pub(crate) fn decode_response(
    bytes: &[u8],
) -> Result<(Affine<C>, Scalar, u64, [u8; 2 * SCALAR_LEN])> {
    let mut r = Reader::new(bytes);
    let a = r.element::<C>()?;
    let e = read_scalar(&mut r)?;
    let amount = read_u64(&mut r)?;
    let proof = r.array::<{ 2 * SCALAR_LEN }>()?;
    r.finish()?;
    check_proof_scalars(&proof)?;
    Ok((a, e, amount, proof))
}

impl IssueResponse {
    /// The initial balance `c` the Moderator granted.
    pub fn balance(&self) -> u64 {
        self.c
    }

    /// `A || e || uint64 c || pok`, 137 bytes.
    pub fn to_bytes(&self) -> [u8; RESPONSE_LEN] {
        encode_response(&self.a, &self.e, self.c, &self.proof)
    }

    /// Strict decoding (137 bytes; `A` on the curve and not the identity; canonical scalars).
    /// The amount is checked against `L` by [`ClientIssuanceState::finalize`].
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (a, e, c, proof) = decode_response(bytes)?;
        Ok(Self { a, e, c, proof })
    }
}

impl PrivateKey {
    /// `IssueResponse` (ACT §4.5.3): checks `c < 2^L`, verifies the request's proof, and signs
    /// `X_A = B + c*H1 + ctx*H4 + K` with `e = SigningExponent(skM, "IssueResponse", X_A)`.
    /// Constant time in `skM`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for `c >= 2^L`; [`Error::InvalidProof`] for a request that does
    /// not verify; [`Error::Inverse`] if `e + skM = 0` (retry).
    pub fn issue(
        &self,
        ctx: &CredentialContext,
        c: u64,
        request: &IssueRequest,
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<IssueResponse> {
        let rand = draw(rng);
        self.issue_with(ctx, c, request, &rand)
    }

    pub(crate) fn issue_with(
        &self,
        ctx: &CredentialContext,
        c: u64,
        request: &IssueRequest,
        rand: &[u8; 2 * SEED_LEN],
    ) -> Result<IssueResponse> {
        check_amount(u128::from(c), ctx.l)?;
        let g = generators()?;
        let enc = C::encode_compressed(&request.k);
        let rel = proofs::commitment(g, (&request.k, &enc))?;
        proofs::verify(
            &proofs::session_id(ISSUE_REQUEST, &[])?,
            &rel,
            &request.proof,
            &proofs::commitment_tables(g),
        )?;
        let x_a = issue_x_a(g, ctx, c, &request.k);
        let (a, e, proof) = sign(self, ISSUE_RESPONSE, &x_a, rand)?;
        Ok(IssueResponse { a, e, c, proof })
    }
}

/// A credential `(k, c, r, A, e)` with the hidden balance `c` (ACT §4.5.4): a BBS-style MAC
/// `(e + skM) * A = B + c*H1 + k*H2 + r*H3 + ctx*H4`. Secret: zeroized on drop, `Debug`
/// redacted, not `Clone` (spending consumes it). Keep the [`CredentialContext`] with it.
pub struct Credential {
    pub(crate) k: Scalar,
    pub(crate) c: u64,
    pub(crate) r: Scalar,
    pub(crate) a: Affine<C>,
    pub(crate) e: Scalar,
}

impl Zeroize for Credential {
    fn zeroize(&mut self) {
        self.k.zeroize();
        self.c.zeroize();
        self.r.zeroize();
        self.e.zeroize();
        self.a = Affine::<C>::IDENTITY;
    }
}

impl Drop for Credential {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Credential {}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Credential(<redacted>)")
    }
}

impl ConstantTimeEq for Credential {
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        self.k.ct_eq(&o.k)
            & self.c.ct_eq(&o.c)
            & self.r.ct_eq(&o.r)
            & group::ct_eq_affine::<C>(&self.a, &o.a)
            & self.e.ct_eq(&o.e)
    }
}

impl PartialEq for Credential {
    fn eq(&self, o: &Self) -> bool {
        self.ct_eq(o).into()
    }
}

impl Eq for Credential {}

impl Credential {
    /// The balance `c`.
    pub fn balance(&self) -> u64 {
        self.c
    }

    /// `k || uint64 c || r || A || e` (137 bytes, ACT Appendix A), in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; CREDENTIAL_LEN]> {
        let mut out = Zeroizing::new([0u8; CREDENTIAL_LEN]);
        out[..32].copy_from_slice(&encode_scalar(&self.k));
        out[32..40].copy_from_slice(&self.c.to_be_bytes());
        out[40..72].copy_from_slice(&encode_scalar(&self.r));
        out[72..105].copy_from_slice(&encode_element(&self.a));
        out[105..].copy_from_slice(&encode_scalar(&self.e));
        out
    }

    /// Strict decoding of [`Self::to_bytes`]. The balance is checked against `L` when spent.
    ///
    /// # Errors
    /// Length, scalar and point decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut rd = Reader::new(bytes);
        let k = read_scalar(&mut rd)?;
        let c = read_u64(&mut rd)?;
        let r = read_scalar(&mut rd)?;
        let a = rd.element::<C>()?;
        let e = read_scalar(&mut rd)?;
        rd.finish()?;
        Ok(Self { k, c, r, a, e })
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    IssueRequest,
    |m: &IssueRequest| m.to_bytes(),
    IssueRequest::from_bytes
);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    IssueResponse,
    |m: &IssueResponse| m.to_bytes(),
    IssueResponse::from_bytes
);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    Credential,
    |m: &Credential| m.to_bytes(),
    Credential::from_bytes
);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    ClientIssuanceState,
    |m: &ClientIssuanceState| m.to_bytes(),
    ClientIssuanceState::from_bytes
);
