//! Issuance (IHAT §5): `Commit`, `Challenge`, `Respond`, `Finalize`, `Verify`, and the
//! Endorsement.

use core::fmt;

use elliptic_curve::ff::Field;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::{
    challenge_hash, context_base, derive_scalars, encode_nonidentity, mul_gen_add, Affine, Anchor,
    Nullifier, PublicKey, Scalar, C, ELEMENT_LEN, NULLIFIER_LEN, SCALAR_LEN, SEED_LEN,
};
use crate::act::{encode_scalar, read_scalar, Rejected};
use crate::group::{self, validation, Point};
use crate::privacy_pass::{varint_decode, varint_encode};
use crate::wire::Reader;
use crate::{Error, Result};

/// Length of a [`ResponseMessage`]: `s || y || t`.
pub const RESPONSE_LEN: usize = 3 * SCALAR_LEN;
/// Length of an [`Endorsement`]: `c || s || y || t || nf`.
pub const ENDORSEMENT_LEN: usize = 4 * SCALAR_LEN + NULLIFIER_LEN;
/// The randomness `Challenge` draws: `nf` (`Nn`), then one `Nseed` block.
pub const CHALLENGE_RAND_LEN: usize = NULLIFIER_LEN + SEED_LEN;
/// The longest session identifier a varint can prefix (`2^62 - 1` bytes).
const MAX_SESSION_ID: u64 = (1 << 62) - 1;

fn check_session_id(session_id: &[u8]) -> Result<()> {
    if session_id.len() as u64 > MAX_SESSION_ID {
        return Err(Error::InputTooLong);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Messages

/// `CommitMessage = session_id<V> || A || C` (IHAT §5.6): the Anchor's commitment, with the
/// transport session identifier (never hashed).
#[derive(Clone, PartialEq, Eq)]
pub struct CommitMessage {
    session_id: Vec<u8>,
    a: Affine<C>,
    c: Affine<C>,
}

impl fmt::Debug for CommitMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::wire::debug_hex(f, "CommitMessage", &self.to_bytes())
    }
}

impl CommitMessage {
    /// The session identifier, which the Client echoes.
    pub fn session_id(&self) -> &[u8] {
        &self.session_id
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.session_id.len() + 2 * ELEMENT_LEN);
        varint_encode(self.session_id.len(), &mut out);
        out.extend_from_slice(&self.session_id);
        out.extend_from_slice(&crate::act::encode_element(&self.a));
        out.extend_from_slice(&crate::act::encode_element(&self.c));
        out
    }

    /// Strict decoding: a minimal varint, the session identifier, two points on the curve
    /// and not the identity, nothing after.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidEncoding`] (a varint that is not minimal),
    /// [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (len, rest) = varint_decode(bytes)?;
        let mut r = Reader::new(rest);
        let session_id = r.take(len)?.to_vec();
        let a = r.element::<C>()?;
        let c = r.element::<C>()?;
        r.finish()?;
        Ok(Self { session_id, a, c })
    }
}

/// `ChallengeMessage = session_id<V> || challenge` (IHAT §5.6): the Client's blinded
/// challenge `c * gamma2`.
#[derive(Clone, PartialEq, Eq)]
pub struct ChallengeMessage {
    session_id: Vec<u8>,
    challenge: Scalar,
}

impl fmt::Debug for ChallengeMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::wire::debug_hex(f, "ChallengeMessage", &self.to_bytes())
    }
}

impl ChallengeMessage {
    /// The session identifier, by which the Anchor finds its state.
    pub fn session_id(&self) -> &[u8] {
        &self.session_id
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.session_id.len() + SCALAR_LEN);
        varint_encode(self.session_id.len(), &mut out);
        out.extend_from_slice(&self.session_id);
        out.extend_from_slice(&encode_scalar(&self.challenge));
        out
    }

    /// Strict decoding: a minimal varint, the session identifier, a canonical scalar,
    /// nothing after.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidEncoding`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (len, rest) = varint_decode(bytes)?;
        let mut r = Reader::new(rest);
        let session_id = r.take(len)?.to_vec();
        let challenge = read_scalar(&mut r)?;
        r.finish()?;
        Ok(Self {
            session_id,
            challenge,
        })
    }
}

/// `ResponseMessage = s || y || t` (IHAT §5.6), 96 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ResponseMessage {
    s: Scalar,
    y: Scalar,
    t: Scalar,
}

impl fmt::Debug for ResponseMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::wire::debug_hex(f, "ResponseMessage", &self.to_bytes())
    }
}

impl ResponseMessage {
    /// The encoding.
    pub fn to_bytes(&self) -> [u8; RESPONSE_LEN] {
        let mut out = [0u8; RESPONSE_LEN];
        for (chunk, x) in out
            .chunks_exact_mut(SCALAR_LEN)
            .zip([&self.s, &self.y, &self.t])
        {
            chunk.copy_from_slice(&encode_scalar(x));
        }
        out
    }

    /// Strict decoding: exactly 96 bytes, three canonical scalars.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let s = read_scalar(&mut r)?;
        let y = read_scalar(&mut r)?;
        let t = read_scalar(&mut r)?;
        r.finish()?;
        Ok(Self { s, y, t })
    }
}

// ---------------------------------------------------------------------------------------------
// The Anchor: Commit and Respond (IHAT §5.2, §5.4)

/// The Anchor's secrets of one session, `(a, y, t)`, and its session identifier. Consumed by
/// [`Anchor::respond`], so a session answers at most one challenge (two answers reveal
/// `skA`). Not `Clone`, and it has no decoder: a state cannot be restored after it was used.
/// Zeroized on drop; `Debug` redacted.
pub struct AnchorState {
    a: Scalar,
    y: Scalar,
    t: Scalar,
    session_id: Vec<u8>,
}

impl Zeroize for AnchorState {
    fn zeroize(&mut self) {
        self.a.zeroize();
        self.y.zeroize();
        self.t.zeroize();
    }
}

impl Drop for AnchorState {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for AnchorState {}

impl fmt::Debug for AnchorState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AnchorState(<redacted>)")
    }
}

impl AnchorState {
    /// The session identifier the state was committed under.
    pub fn session_id(&self) -> &[u8] {
        &self.session_id
    }

    /// `a || y || t` (the vectors' `issue.commit.state`; note the order).
    pub(crate) fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(3 * SCALAR_LEN));
        for x in [&self.a, &self.y, &self.t] {
            out.extend_from_slice(&encode_scalar(x));
        }
        out
    }
}

/// The output of [`Anchor::commit`].
#[derive(Debug)]
pub struct CommitResult {
    /// Send to the Client.
    pub message: CommitMessage,
    /// Keep for [`Anchor::respond`].
    pub state: AnchorState,
}

impl Anchor {
    /// `Commit(ctx_iss)` (IHAT §5.2): `(a, t, y) = DeriveScalars(random(48), "Commit", 3)`,
    /// `A = a * B`, `C = t * B + y * Z` with `Z = CreateContextBase(ctx_iss)`. Constant time.
    ///
    /// The Anchor must not have two open sessions with one identifier; it should draw them
    /// at random.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for a `ctx_iss` of 65536 bytes or more;
    /// [`Error::IdentityElement`] or [`Error::ZeroScalar`] with negligible probability.
    pub fn commit(
        &self,
        ctx_iss: &[u8],
        session_id: &[u8],
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<CommitResult> {
        let mut rand = Zeroizing::new([0u8; SEED_LEN]);
        rng.fill_bytes(&mut *rand);
        Self::commit_with(ctx_iss, session_id, &rand)
    }

    pub(crate) fn commit_with(
        ctx_iss: &[u8],
        session_id: &[u8],
        rand: &[u8; SEED_LEN],
    ) -> Result<CommitResult> {
        check_session_id(session_id)?;
        let z = context_base(ctx_iss)?;
        let d = derive_scalars(rand, b"Commit", 3)?;
        let [a, t, y] = <[Scalar; 3]>::try_from(&d[..]).map_err(|_| Error::Batch)?;
        let state = AnchorState {
            a,
            y,
            t,
            session_id: session_id.to_vec(),
        };
        let [mut big_a, mut big_c] = group::normalize_array::<C, 2>(&[
            group::mul_generator::<C>(&state.a),
            mul_gen_add(&state.t, &z, &state.y),
        ]);
        // Published: the commitment is the message.
        validation::publish(&mut big_a);
        validation::publish(&mut big_c);
        encode_nonidentity(&big_a)?;
        encode_nonidentity(&big_c)?;
        Ok(CommitResult {
            message: CommitMessage {
                session_id: session_id.to_vec(),
                a: big_a,
                c: big_c,
            },
            state,
        })
    }

    /// `Respond(skA, state, challenge)` (IHAT §5.4): `s = a + challenge * y * skA`, sent with
    /// `y` and `t`. Consumes the state: a session answers at most one challenge. Constant
    /// time.
    ///
    /// A second answer from one state does not compile:
    ///
    /// ```compile_fail,E0382
    /// # use privacy_tokens::rollatini::{Anchor, ChallengeMessage};
    /// # fn f(anchor: &Anchor, m: &ChallengeMessage) {
    /// let mut rng = rand::rng();
    /// let c = anchor.commit(b"ctx", b"sid", &mut rng).unwrap(); // ok: doctest
    /// let _ = anchor.respond(c.state, m);
    /// let _ = anchor.respond(c.state, m);
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for a challenge of another session; [`Error::ZeroScalar`] for
    /// a zero challenge. The state is consumed either way.
    pub fn respond(
        &self,
        state: AnchorState,
        challenge: &ChallengeMessage,
    ) -> Result<ResponseMessage> {
        if !bool::from(state.session_id.ct_eq(&challenge.session_id)) {
            return Err(Error::InvalidInput);
        }
        if bool::from(challenge.challenge.is_zero()) {
            return Err(Error::ZeroScalar);
        }
        let mut response = ResponseMessage {
            s: state.a + challenge.challenge * state.y * self.sk,
            y: state.y,
            t: state.t,
        };
        // Published: the response is sent.
        validation::publish(&mut response);
        Ok(response)
    }
}

// ---------------------------------------------------------------------------------------------
// The Client: Challenge and Finalize (IHAT §5.3, §5.5)

/// The Client's secrets of one issuance: `nf`, the blinds `r1, r2, gamma1, gamma2`, the
/// unblinded challenge `c`, and the Anchor's commitment. Consumed by
/// [`ClientState::finalize`]. Zeroized on drop; `Debug` redacted; not `Clone`.
pub struct ClientState {
    nf: Nullifier,
    r1: Scalar,
    r2: Scalar,
    gamma1: Scalar,
    gamma2: Scalar,
    gamma: Scalar,
    c: Scalar,
    challenge: Scalar,
    z: Affine<C>,
    a: Affine<C>,
    big_c: Affine<C>,
}

impl Zeroize for ClientState {
    fn zeroize(&mut self) {
        self.nf.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
        self.gamma1.zeroize();
        self.gamma2.zeroize();
        self.gamma.zeroize();
        self.c.zeroize();
        self.challenge.zeroize();
    }
}

impl Drop for ClientState {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for ClientState {}

impl fmt::Debug for ClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientState(<redacted>)")
    }
}

/// The output of [`ClientState::challenge`].
#[derive(Debug)]
pub struct ChallengeResult {
    /// Send to the Anchor.
    pub message: ChallengeMessage,
    /// Keep for [`ClientState::finalize`].
    pub state: ClientState,
}

impl ClientState {
    /// `Challenge(pkA, ctx_iss, ctx_red, (A, C))` (IHAT §5.3): `nf` and the blinds from
    /// `random(32 + 48)`, `A' = r1 * B + gamma * A`, `C' = gamma1 * C + r2 * B` with `gamma =
    /// gamma1 / gamma2`, `c = ComputeChallenge(ctx_iss, A', C', Message(nf, ctx_red))`, and
    /// the blinded challenge `c * gamma2`. Constant time.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for oversized contexts; [`Error::IdentityElement`] or
    /// [`Error::ZeroScalar`] with negligible probability.
    pub fn challenge(
        anchor: &PublicKey,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        commit: &CommitMessage,
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<ChallengeResult> {
        let mut rand = Zeroizing::new([0u8; CHALLENGE_RAND_LEN]);
        rng.fill_bytes(&mut *rand);
        Self::challenge_with(anchor, ctx_iss, ctx_red, commit, &rand)
    }

    pub(crate) fn challenge_with(
        _anchor: &PublicKey,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        commit: &CommitMessage,
        rand: &[u8; CHALLENGE_RAND_LEN],
    ) -> Result<ChallengeResult> {
        // `pkA` is never the identity: `PublicKey` cannot hold it.
        let z = context_base(ctx_iss)?;
        let mut nf = [0u8; NULLIFIER_LEN];
        nf.copy_from_slice(&rand[..NULLIFIER_LEN]);
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        seed.copy_from_slice(&rand[NULLIFIER_LEN..]);
        let d = derive_scalars(&seed, b"Challenge", 4)?;
        let [r1, r2, gamma1, gamma2] = <[Scalar; 4]>::try_from(&d[..]).map_err(|_| Error::Batch)?;
        let gamma = Zeroizing::new(gamma1 * group::invert::<C>(&gamma2)?);
        let [a_bar, c_bar] = group::normalize_array::<C, 2>(&[
            mul_gen_add(&r1, &commit.a, &gamma),
            mul_gen_add(&r2, &commit.c, &gamma1),
        ]);
        let a_enc = Zeroizing::new(encode_nonidentity(&a_bar)?);
        let c_enc = Zeroizing::new(encode_nonidentity(&c_bar)?);
        let c = challenge_hash(ctx_iss, &a_enc, &c_enc, &nf, ctx_red)?;
        if group::declassify(c.is_zero()) {
            return Err(Error::ZeroScalar);
        }
        let mut challenge = c * gamma2;
        // Published: the blinded challenge is the message.
        validation::publish(&mut challenge);
        Ok(ChallengeResult {
            message: ChallengeMessage {
                session_id: commit.session_id.clone(),
                challenge,
            },
            state: ClientState {
                nf,
                r1,
                r2,
                gamma1,
                gamma2,
                gamma: *gamma,
                c,
                challenge,
                z,
                a: commit.a,
                big_c: commit.c,
            },
        })
    }

    /// `nf || r1 || r2 || gamma1 || gamma2 || c` (the vectors' `issue.challenge.state`).
    pub(crate) fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(NULLIFIER_LEN + 5 * SCALAR_LEN));
        out.extend_from_slice(&self.nf);
        for x in [&self.r1, &self.r2, &self.gamma1, &self.gamma2, &self.c] {
            out.extend_from_slice(&encode_scalar(x));
        }
        out
    }

    /// `Finalize(pkA, state, response)` (IHAT §5.5): checks `y != 0`, `C = t * B + y * Z` and
    /// `s * B = A + (challenge * y) * pkA`, then unblinds: the Endorsement `(c, gamma * s +
    /// r1, gamma1 * y, gamma1 * t + r2, nf)`. Constant time.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] (the draft's `VerifyError`) when a check fails, with the state
    /// handed back in [`Rejected`] (a corrupted response may be asked for again).
    pub fn finalize(
        self,
        anchor: &PublicKey,
        response: &ResponseMessage,
    ) -> core::result::Result<Endorsement, Rejected<ClientState>> {
        match self.finalize_inner(anchor, response) {
            Ok(e) => Ok(e),
            Err(error) => Err(Rejected {
                state: Box::new(self),
                error,
            }),
        }
    }

    fn finalize_inner(
        &self,
        anchor: &PublicKey,
        response: &ResponseMessage,
    ) -> Result<Endorsement> {
        let ResponseMessage { s, y, t } = *response;
        let cy = self.challenge * y;
        let lhs_c = mul_gen_add(&t, &self.z, &y);
        let lhs_a = group::mul_generator::<C>(&s);
        let rhs_a = Point::<C>::from(self.a) + group::mul_affine::<C>(&anchor.pk, &cy);
        let ok = !y.is_zero() & lhs_c.ct_eq(&Point::<C>::from(self.big_c)) & lhs_a.ct_eq(&rhs_a);
        if !group::declassify(ok) {
            return Err(Error::InvalidProof);
        }
        Ok(Endorsement {
            sig: Signature {
                c: self.c,
                s: self.gamma * s + self.r1,
                y: self.gamma1 * y,
                t: self.gamma1 * t + self.r2,
                nf: self.nf,
            },
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Signatures and Endorsements

/// `(c, s, y, t, nf)`: the content of an Endorsement and the shown signature of a redemption.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Signature {
    pub(crate) c: Scalar,
    pub(crate) s: Scalar,
    pub(crate) y: Scalar,
    pub(crate) t: Scalar,
    pub(crate) nf: Nullifier,
}

impl Zeroize for Signature {
    fn zeroize(&mut self) {
        self.c.zeroize();
        self.s.zeroize();
        self.y.zeroize();
        self.t.zeroize();
        self.nf.zeroize();
    }
}

impl Signature {
    pub(crate) fn write(&self, out: &mut [u8; ENDORSEMENT_LEN]) {
        for (chunk, x) in out
            .chunks_exact_mut(SCALAR_LEN)
            .zip([&self.c, &self.s, &self.y, &self.t])
        {
            chunk.copy_from_slice(&encode_scalar(x));
        }
        out[4 * SCALAR_LEN..].copy_from_slice(&self.nf);
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self> {
        let c = read_scalar(r)?;
        let s = read_scalar(r)?;
        let y = read_scalar(r)?;
        let t = read_scalar(r)?;
        let nf = r.array::<NULLIFIER_LEN>()?;
        Ok(Self { c, s, y, t, nf })
    }

    /// `Verify(pk, (c, s, y, t, nf), ctx_iss, ctx_red)` (IHAT §5.5) on public data, variable
    /// time: `c != 0`, `y != 0`, `C = t * B + y * Z`, `A = s * B - (c * y) * pk`, neither the
    /// identity, and `c` equals the challenge hash.
    pub(crate) fn vartime_verify(
        &self,
        pk: &Affine<C>,
        z: &Affine<C>,
        ctx_iss: &[u8],
        ctx_red: &[u8],
    ) -> Result<()> {
        if bool::from(self.c.is_zero() | self.y.is_zero()) {
            return Err(Error::InvalidProof);
        }
        let g = Point::<C>::from(Affine::<C>::generator());
        let big_c = group::vartime_lincomb::<C, 2>(&[g, Point::<C>::from(*z)], &[self.t, self.y]);
        let big_a = group::vartime_lincomb::<C, 2>(
            &[g, Point::<C>::from(*pk)],
            &[self.s, -(self.c * self.y)],
        );
        let [big_a, big_c] = group::normalize_array::<C, 2>(&[big_a, big_c]);
        let a_enc = encode_nonidentity(&big_a).map_err(|_| Error::InvalidProof)?;
        let c_enc = encode_nonidentity(&big_c).map_err(|_| Error::InvalidProof)?;
        let expected = challenge_hash(ctx_iss, &a_enc, &c_enc, &self.nf, ctx_red)?;
        if expected != self.c {
            return Err(Error::InvalidProof);
        }
        Ok(())
    }
}

/// An Endorsement `(c, s, y, t, nf)` (IHAT §5.5): a signature, under the Anchor's key and the
/// issuance context, on the message that binds the nullifier and the redemption context.
/// The Client holds it until it redeems it ([`Endorsement::redeem`]). Zeroized on drop;
/// `Debug` redacted; not `Clone`.
pub struct Endorsement {
    pub(crate) sig: Signature,
}

impl Zeroize for Endorsement {
    fn zeroize(&mut self) {
        self.sig.zeroize();
    }
}

impl Drop for Endorsement {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Endorsement {}

impl fmt::Debug for Endorsement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Endorsement(<redacted>)")
    }
}

impl Endorsement {
    /// The nullifier `nf`, which the redemption reveals.
    pub fn nullifier(&self) -> &Nullifier {
        &self.sig.nf
    }

    /// `c || s || y || t || nf`, 160 bytes, in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; ENDORSEMENT_LEN]> {
        let mut out = Zeroizing::new([0u8; ENDORSEMENT_LEN]);
        self.sig.write(&mut out);
        out
    }

    /// Strict decoding: exactly 160 bytes, four canonical scalars (zero `c` or `y` decode
    /// and fail [`crate::rollatini::Moderator::verify`]), the nullifier.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let sig = Signature::read(&mut r)?;
        r.finish()?;
        Ok(Self { sig })
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(CommitMessage);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(ChallengeMessage);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(ResponseMessage);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Endorsement);
